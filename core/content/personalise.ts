// Substitution (the spec's rules 2 and 3): the subject, the HTML and text contents and the header
// values of a send are templates of the substitution language (./dialect.ts), rendered once per
// recipients[] element with the batch's substitutions merged with the recipient's (the
// recipient's objects win). HTML content escapes the values it receives (`?no_esc` opts out); the
// subject and header values take them on one line. Compiled once per distinct source (cached).
// With links (the spec's rules 4 to 6): `${urls.online_version}` and `${urls.unsubscribe}` are
// the message's signed links in every field (so are `${urls.share_facebook}`, `…share_twitter`
// and `…share_linkedin`, its share links), and the HTML gets the tracking rewrite
// (./tracking-rewrite.ts).
import { compiledTemplate, mergeModels, TemplateError, type Model, type TemplateOptions } from './dialect/dialect';
import { SHARE_NETWORKS } from '../tracking/share-networks';
import type { Recipient, SendRequestBody } from '../transactional/request';
import { textPartOf } from './text-alternative';
import { MessageTokens, trackedHtmlRenderer, type LinkContext } from './tracking/rewrite';
import type { MessageIdentity } from './tracking/token';

export type { LinkContext } from './tracking/rewrite';
export type { MessageIdentity } from './tracking/token';

const HTML: TemplateOptions = { escape: 'html' };
const TEXT: TemplateOptions = { escape: 'none' };
const ONE_LINE: TemplateOptions = { escape: 'none', singleLine: true };

/**
 * Each templated field of a body with the options it is compiled with, by its path in the
 * request. The body may still be invalid elsewhere: only fields that are strings are taken, so a
 * malformed template is reported beside the other errors of the body.
 */
function templatedFields(body: unknown): Array<[string, string, TemplateOptions]> {
  const { subject, content, headers } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const { html, text } = (typeof content === 'object' && content !== null ? content : {}) as Record<string, unknown>;
  const fields: Array<[string, unknown, TemplateOptions]> = [['subject', subject, ONE_LINE], ['content.html', html, HTML], ['content.text', text, TEXT]];
  if (typeof headers === 'object' && headers !== null) {
    for (const [name, value] of Object.entries(headers)) fields.push([`headers.${name}`, value, ONE_LINE]);
  }
  return fields.filter((field): field is [string, string, TemplateOptions] => typeof field[1] === 'string');
}

/** Compiles every templated field: the fields whose template is malformed, with the reason (line and column). */
export function templateErrors(body: unknown): Record<string, string> {
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

/** A message's copy; `tokens` are its signed links (each signed once, whoever asks: the content, the List-Unsubscribe header). */
export interface Personalised { subject: string; html?: string; text?: string; headers?: Record<string, string>; tokens: MessageTokens }

/**
 * The request's templates, compiled (or found in the cache) once; the function renders one
 * message's copy of the subject, contents and header values, with its own tracking links.
 */
export function contentRenderer(body: SendRequestBody, links: LinkContext): (recipient: Recipient, message: MessageIdentity) => Personalised {
  const compile = (source: string | undefined, options: TemplateOptions) => (source === undefined ? undefined : compiledTemplate(source, options));
  const subject = compiledTemplate(body.subject, ONE_LINE);
  const htmlSource = body.content.html;
  const trackedHtml = htmlSource !== undefined ? trackedHtmlRenderer(htmlSource, body.tracking, links) : undefined;
  const text = compile(textPartOf(body.content), TEXT);
  const headers = body.headers && Object.entries(body.headers).map(([name, value]) => [name, compiledTemplate(value, ONE_LINE)] as const);
  // The two links cost a signature each: made only for templates that may use them.
  const usesUrls = templatedFields(body).some(([, source]) => source.includes('urls'));
  return (recipient, message) => {
    const model = mergeModels(body.substitutions, recipient.substitutions);
    const tokens = new MessageTokens(links, message);
    if (usesUrls) model.urls = { ...ownObject(model.urls), online_version: tokens.url('v'), unsubscribe: tokens.url('u'), ...shareUrls(tokens) };
    return {
      subject: subject.render(model),
      ...(trackedHtml ? { html: trackedHtml(model, tokens) } : {}),
      ...(text ? { text: text.render(model) } : {}),
      ...(headers ? { headers: Object.fromEntries(headers.map(([name, template]) => [name, template.render(model)])) } : {}),
      tokens,
    };
  };
}

/** `share_facebook`, `share_twitter`, `share_linkedin`: the message's share links (core/tracking/share-networks.ts). */
function shareUrls(tokens: MessageTokens): Model {
  return Object.fromEntries(SHARE_NETWORKS.map((network) => [`share_${network}`, tokens.shareUrl(network)]));
}

/** A client's own `urls` object keeps its other keys beside Herald's. */
function ownObject(value: unknown): Model {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Model) : {};
}
