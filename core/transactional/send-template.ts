// `template_id` in a transactional send (the spec's "Transactional send (HTTP)"): the template
// named is resolved when the request is accepted and merged into it, so the stored request is
// complete (the send path never reads a template, and a template edited or deleted afterwards
// does not change a request already accepted). Whatever the request gives wins: from, reply_to,
// subject, and content.html / content.text each by itself (a template has no text part, so a
// request may add one to the template's HTML).
import type { FieldError } from '../shared/errors';
import { fieldError } from '../shared/errors';
import type { TemplateForSend } from '../content/templates';

/** Finds a template of the sending account by the id a client gives; null when there is none. */
export type TemplateLookup = (templateId: string) => Promise<TemplateForSend | null>;

/** The request's fields that the template filled, by their path in the body. */
export type TemplateSourced = ReadonlySet<'from' | 'reply_to' | 'subject' | 'content.html'>;

/** The body with the template's values where it gives none (template_id removed); what came from the template. */
export interface MergedTemplate { body: Record<string, unknown>; sourced: TemplateSourced }

const isGiven = (value: unknown) => value !== undefined && value !== '';

/**
 * Fills the request's absent from, reply_to, subject and content.html from the template. An
 * empty string counts as absent for the subject and the content parts: it could never be sent.
 */
export function mergeTemplate(body: Record<string, unknown>, template: TemplateForSend): MergedTemplate {
  const sourced = new Set<'from' | 'reply_to' | 'subject' | 'content.html'>();
  const merged: Record<string, unknown> = { ...body };
  delete merged.template_id;
  if (merged.from === undefined && template.from) { merged.from = { ...template.from }; sourced.add('from'); }
  if (merged.reply_to === undefined && template.reply_to) { merged.reply_to = { ...template.reply_to }; sourced.add('reply_to'); }
  if (!isGiven(merged.subject) && template.subject) { merged.subject = template.subject; sourced.add('subject'); }
  const given = merged.content;
  // A content that is not an object is the request's own (invalid) value: left for the schema to report.
  if (given === undefined || (typeof given === 'object' && given !== null && !Array.isArray(given))) {
    const content = { ...(given as Record<string, unknown> | undefined) };
    if (!isGiven(content.html)) { content.html = template.html; sourced.add('content.html'); }
    if (!isGiven(content.text)) delete content.text;
    merged.content = content;
  }
  return { body: merged, sourced };
}

/** The field error of a template_id that names no HTML or MJML template of the account. */
export function unknownTemplate(templateId: string): FieldError {
  return fieldError('invalid_value', `No HTML or MJML template ${JSON.stringify(templateId)} in this account: template_id is the id the `
    + 'templates API gives (a path such as /12 or /3/12); a folder is not a template');
}

/** Why a required field is missing once the template was merged: neither gives it. */
export function missingFromBoth(field: string, templateId: string): FieldError {
  return fieldError('required', `Neither the request nor template ${templateId} gives a ${field}`);
}

/**
 * An error found in a value the template gave (its subject too long, a malformed substitution in
 * its HTML): reported on template_id, as the client did not send that field.
 */
export function templateValueError(templateId: string, path: string, error: FieldError): FieldError {
  return { code: error.code, message: `Template ${templateId}, its ${path}: ${error.message}` };
}

/** The sourced field a path belongs to (`from.name` → `from`), or undefined. */
export function sourcedFieldOf(path: string, sourced: TemplateSourced): string | undefined {
  for (const field of sourced) {
    if (path === field || path.startsWith(`${field}.`)) return field;
  }
  return undefined;
}
