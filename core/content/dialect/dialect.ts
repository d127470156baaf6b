/**
 * The transactional substitution language: a FreeMarker-like dialect with square-bracket
 * directives, applied to the subject, the HTML and text contents and the header values of a
 * message, once per recipient, with that recipient's model (see mergeModels).
 *
 *   ${user.name}                         a value; a missing step anywhere renders ""
 *   ${user.name!"friend"}  ${x!}         a default, for a missing or null value or "" (`${x!}` = "")
 *   [#if c]…[#elseif c]…[#else]…[/#if]   conditions: paths, literals, == != < <= > >= (gt gte lt lte),
 *                                        && || ! ( ), `x??` (defined and not null)
 *   [#list xs as x]…[#else]…[/#list]     x?index x?counter x?has_next x?is_first x?is_last
 *   value?name / value?name("arg")       built-ins, chained left to right (dialect-builtins.ts):
 *     text    upper_case lower_case cap_first uncap_first trim length html url no_esc
 *     numbers string("#,##0.00") c round floor ceiling
 *     dates   date datetime time string("dd/MM/yyyy HH:mm")
 *     other   string("yes", "no") (booleans) size (arrays) has_content
 *   [#-- comment --]  [#noparse]…[/#noparse]
 *
 * Decisions:
 * - Escaping is a compile option. With `escape: 'html'` every interpolated value is HTML-escaped
 *   unless its expression ends with `?no_esc` (`?html` output is not escaped twice); with 'none'
 *   nothing is. `singleLine` (subject, headers) turns each CR, LF or CRLF of an interpolated value
 *   into a space, also for `?no_esc` values. Literal template text is never changed.
 * - `!` and `?` apply left to right to everything before them: `${x?upper_case!"none"}` is
 *   `(x?upper_case)!"none"` (a built-in on a missing value gives a missing value, so the default
 *   shows), and `${x!"none"?upper_case}` upper-cases whichever was chosen. A default's value is
 *   one operand (a literal, a path or a parenthesised expression).
 * - Truthiness: false for missing, null, false, "", 0, [] and {}; true otherwise.
 * - Comparisons: numbers (and numeric text) by value, text by code unit, dates by time; a missing
 *   value equals only a missing value and is never ordered (a comparison with it is false).
 * - [#list] over a missing or non-array value is an empty list: the body is skipped and its
 *   [#else], if any, is rendered.
 * - Arrays and objects have no text: `${anArray}` renders "". Numbers render as `?c` (no grouping).
 * - Model lookups see own data only; `__proto__`, `constructor` and `prototype` are always missing.
 * - Dates are ISO 8601 text (no offset = UTC) or epoch milliseconds, formatted in UTC; ?date,
 *   ?datetime and ?time render as yyyy-MM-dd, yyyy-MM-dd HH:mm:ss and HH:mm:ss.
 * - `[#` or `[/#` followed by a letter is always a directive: an unknown name is a TemplateError.
 *   Any other `[`, `$` (not followed by `{`) or `#` is literal text, and so is Handlebars syntax
 *   (`{{x}}`). A literal `${` is written `${"${"}` or inside [#noparse].
 * - Unlike FreeMarker, lines holding only directives keep their whitespace and line breaks.
 * - Rendering never throws: a built-in that cannot apply to its value yields a missing value.
 * - Limits: 300 KB of UTF-8, 2000 tags (${…} and directives), directives nested 100 deep.
 *   A malformed template throws TemplateError, "Line L, column C: reason".
 */
import { TemplateError } from './error';
import { parseTemplate, type Instrumentation, type Node } from './parse';
import { toRenderer, type RenderHooks } from './handlebars';
import { presenter } from './values';

export { TemplateError } from './error';
export type { Instrumentation } from './parse';
export type { RenderHooks } from './handlebars';

export interface TemplateOptions {
  escape: 'html' | 'none';
  /** CR and LF of interpolated values become spaces: for the subject and header values. */
  singleLine?: boolean;
  /**
   * The source is text, not a template: nothing in it is substituted (`${x}` stays as written),
   * and the template size limit does not apply. SMTP submissions (the spec: no substitution).
   */
  literal?: boolean;
}

export type Model = Record<string, unknown>;

export interface CompiledTemplate {
  /** `hooks` serve an instrumented template's ranges and points (see Instrumentation). */
  render(model: Model, hooks?: RenderHooks): string;
}

export const MAX_TEMPLATE_BYTES = 300 * 1024;

/**
 * Parses and compiles `source`; throws TemplateError (with line and column) when it is malformed.
 * `instrumentation` (offsets into the source, not syntax: a template cannot reach it) lets the
 * host rewrite ranges of the output and write its own text at points, through render's hooks.
 */
export function compileTemplate(source: string, options: TemplateOptions, instrumentation?: Instrumentation): CompiledTemplate {
  if (options.escape !== 'html' && options.escape !== 'none') throw new TypeError(`Unknown escape mode: ${String(options.escape)}`);
  // Bytes as UTF-8: more than 1 per character only beyond ASCII, so most sizes need no count.
  const tooBig = source.length > MAX_TEMPLATE_BYTES || (source.length * 3 > MAX_TEMPLATE_BYTES && Buffer.byteLength(source) > MAX_TEMPLATE_BYTES);
  if (tooBig && !options.literal) throw new TemplateError(`The template exceeds ${MAX_TEMPLATE_BYTES / 1024} KB`);
  const nodes = parseTemplate(source, instrumentation, options.literal === true);
  // Nothing to substitute: the text as is (comments and [#noparse] already resolved).
  if (nodes.every((n) => n.k === 'text')) {
    const text = nodes.map((n) => (n.k === 'text' ? n.text : '')).join('');
    return { render: () => text };
  }
  // Nothing to substitute but instrumented ranges and points (tracked links, the open pixel of a
  // content without substitutions, the common case): written directly, no Handlebars program.
  const flat = flatRenderer(nodes);
  if (flat) return { render: (_model, hooks) => flat(hooks) };
  const render = toRenderer(nodes, source, presenter({ html: options.escape === 'html', singleLine: options.singleLine === true }));
  return { render: (model, hooks) => render(model ?? {}, hooks) };
}

/** A renderer for text with instrumented ranges of text and points only; null for anything else. */
function flatRenderer(nodes: Node[]): ((hooks?: RenderHooks) => string) | null {
  const textOf = (body: Node[]) => (body.every((n) => n.k === 'text') ? body.map((n) => (n.k === 'text' ? n.text : '')).join('') : null);
  const parts: Array<string | { wrap: number; text: string } | { insert: number }> = [];
  for (const node of nodes) {
    if (node.k === 'text') parts.push(node.text);
    else if (node.k === 'insert') parts.push({ insert: node.id });
    else if (node.k === 'wrap') {
      const text = textOf(node.body);
      if (text === null) return null;
      parts.push({ wrap: node.id, text });
    } else return null;
  }
  return (hooks) => {
    let out = '';
    for (const part of parts) {
      if (typeof part === 'string') out += part;
      else if ('wrap' in part) out += hooks ? hooks.wrap(part.wrap, part.text) : part.text;
      else if (hooks) out += hooks.insert(part.insert);
    }
    return out;
  };
}

// Bounded twice: by entries, and by characters, since entries may be up to 300 KB each.
const CACHE_ENTRIES = 500;
const CACHE_CHARS = 32 * 1024 * 1024;
type Variants = Partial<Record<string, object>>;
const cache = new Map<string, Variants>();
let cachedChars = 0;

/** compileTemplate through a least-recently-used cache keyed by source and options. */
export function compiledTemplate(source: string, options: TemplateOptions): CompiledTemplate {
  return cachedCompile(source, `${options.escape}/${options.singleLine === true}/${options.literal === true}`, () => compileTemplate(source, options));
}

/**
 * What `compile` makes of `source`, through the same cache as compiledTemplate: `variant` names
 * the kind of result (one kind per variant name), so other compilations of a content (the
 * tracking rewrite's) share its bounds.
 */
export function cachedCompile<T extends object>(source: string, variant: string, compile: () => T): T {
  let variants = cache.get(source);
  const hit = variants?.[variant];
  if (variants) {
    // Re-inserted: Map order is insertion order, so the first key is the least recently used.
    cache.delete(source);
    cache.set(source, variants);
  }
  if (hit) return hit as T;
  const compiled = compile();
  if (!variants) {
    variants = {};
    cache.set(source, variants);
    cachedChars += source.length;
  }
  variants[variant] = compiled;
  for (const [oldest] of cache) {
    if (cache.size <= CACHE_ENTRIES && cachedChars <= CACHE_CHARS) break;
    cache.delete(oldest);
    cachedChars -= oldest.length;
  }
  return compiled;
}

/** The model of one recipient: the batch's substitutions, each top-level key replaced by the recipient's. */
export function mergeModels(batch: Model | null | undefined, recipient: Model | null | undefined): Model {
  // Spread defines own properties, so a "__proto__" key stays data and never sets a prototype.
  return { ...(batch ?? {}), ...(recipient ?? {}) };
}
