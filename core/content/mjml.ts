// MJML templates are compiled once, when saved: the stored HTML is what previews and sends use,
// so a send never pays for (or fails at) a compilation.
//
// validationLevel 'strict': an MJML error (an unknown element, an illegal attribute, an element
// in the wrong place) refuses the save with the line and message of the first errors, instead of
// storing HTML that mjml produced by skipping what it did not understand ('soft'). A template is
// saved once and sent many times: better to hear about the mistake at the save.
// ignoreIncludes: `<mj-include path="…">` would read files of the server; it is dropped. No
// .mjmlconfig is read (its packages would load code), whatever directory Herald runs in.
import { errors, fieldError } from '../shared/errors';

interface MjmlError { line?: number; message?: string }
interface MjmlResult { html: string; errors?: MjmlError[] }
type Mjml2Html = (source: string, options: Record<string, unknown>) => Promise<MjmlResult>;

// mjml ships no types; in v5 it answers with a promise. Loaded on the first compilation, not at
// start: requiring it takes ~0.3 s, which every API and worker process (and test file) paid.
let mjml2html: Mjml2Html | undefined;
const loadMjml = (): Mjml2Html => (mjml2html ??= require('mjml') as Mjml2Html);

const OPTIONS = { validationLevel: 'strict', ignoreIncludes: true, useMjmlConfigOptions: false, keepComments: false } as const;

/** What the compiled HTML of one template may weigh: the account API's request limit. */
export const MAX_COMPILED_HTML_BYTES = 1024 * 1024;
/** Errors shown in the validation message (mjml can report hundreds). */
const SHOWN_ERRORS = 3;

/**
 * The HTML of an MJML source, or VALIDATION_ERROR on `field` naming the first errors' lines.
 * Only mjml's line and message are shown: its formatted message carries the server's directory.
 */
export async function compileMjml(source: string, field = 'mjmlRaw'): Promise<string> {
  let result: MjmlResult;
  try {
    result = await loadMjml()(source, { ...OPTIONS });
  } catch (error) {
    throw invalid(field, describeFailure(error));
  }
  if (result.errors && result.errors.length > 0) throw invalid(field, describeErrors(result.errors));
  if (Buffer.byteLength(result.html, 'utf8') > MAX_COMPILED_HTML_BYTES) {
    throw invalid(field, `The compiled HTML exceeds ${MAX_COMPILED_HTML_BYTES / 1024} KB`);
  }
  return result.html;
}

function describeFailure(error: unknown): string {
  const listed = (error as { errors?: unknown }).errors;
  if (Array.isArray(listed) && listed.length > 0) return describeErrors(listed as MjmlError[]);
  const message = error instanceof Error ? error.message : '';
  // "Parsing failed. Check your mjml.": mjml's words when the root is not <mjml>.
  if (/parsing failed/i.test(message)) return 'Not MJML: the source must be an <mjml> document with an <mj-body>';
  return 'The MJML could not be compiled';
}

function describeErrors(list: MjmlError[]): string {
  const shown = list.slice(0, SHOWN_ERRORS).map((e) => `line ${e.line ?? '?'}: ${String(e.message ?? 'invalid').slice(0, 200)}`);
  const more = list.length > SHOWN_ERRORS ? ` (and ${list.length - SHOWN_ERRORS} more)` : '';
  return `Invalid MJML, ${shown.join('; ')}${more}`;
}

const invalid = (field: string, message: string) => errors.validation({ [field]: fieldError('invalid_value', message) });
