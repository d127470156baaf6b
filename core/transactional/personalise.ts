// Substitution (the spec's rules 2 and 3): the subject, the HTML and text contents and the header
// values of a send are templates of the substitution language (./dialect.ts), rendered once per
// recipients[] element with the batch's substitutions merged with the recipient's (the
// recipient's objects win). HTML content escapes the values it receives (`?no_esc` opts out); the
// subject and header values take them on one line. Compiled once per distinct source (cached).
import { compiledTemplate, mergeModels, TemplateError, type CompiledTemplate, type TemplateOptions } from './dialect';
import type { Recipient, SendRequestBody } from './request';

const HTML: TemplateOptions = { escape: 'html' };
const TEXT: TemplateOptions = { escape: 'none' };
const ONE_LINE: TemplateOptions = { escape: 'none', singleLine: true };

/** Each templated field of the body with the options it is compiled with, by its path in the request. */
function templatedFields(body: SendRequestBody): Array<[string, string, TemplateOptions]> {
  return [
    ['subject', body.subject, ONE_LINE],
    ...(body.content.html !== undefined ? [['content.html', body.content.html, HTML] as [string, string, TemplateOptions]] : []),
    ...(body.content.text !== undefined ? [['content.text', body.content.text, TEXT] as [string, string, TemplateOptions]] : []),
    ...Object.entries(body.headers ?? {}).map(([name, value]) => [`headers.${name}`, value, ONE_LINE] as [string, string, TemplateOptions]),
  ];
}

/** Compiles every templated field: the fields whose template is malformed, with the reason (line and column). */
export function templateErrors(body: SendRequestBody): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const [field, source, options] of templatedFields(body)) {
    try {
      compiledTemplate(source, options);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      problems[field] = error.message;
    }
  }
  return problems;
}

export interface Personalised { subject: string; html?: string; text?: string; headers?: Record<string, string> }

/** The recipient's copy of the subject, contents and header values. */
export function personalise(body: SendRequestBody, recipient: Recipient): Personalised {
  const model = mergeModels(body.substitutions, recipient.substitutions);
  const render = (source: string, options: TemplateOptions) => (compiledTemplate(source, options) as CompiledTemplate).render(model);
  return {
    subject: render(body.subject, ONE_LINE),
    ...(body.content.html !== undefined ? { html: render(body.content.html, HTML) } : {}),
    ...(body.content.text !== undefined ? { text: render(body.content.text, TEXT) } : {}),
    ...(body.headers ? { headers: Object.fromEntries(Object.entries(body.headers).map(([name, value]) => [name, render(value, ONE_LINE)])) } : {}),
  };
}
