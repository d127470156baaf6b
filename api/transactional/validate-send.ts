import type { ErrorObject } from 'ajv';
import { errors, fieldError, type FieldError, type ValidationCode } from '../../core/shared/errors';
import { checkAttachments, MAX_ATTACHMENTS, type Attachment } from '../../core/transactional/attachments';
import { isAllowedCustomHeader } from '../../core/transactional/headers';
import { templateErrors } from '../../core/content/personalise';
import { launchInstant, type SendRequestBody } from '../../core/transactional/request';
import {
  mergeTemplate, missingFromBoth, sourcedFieldOf, templateValueError, unknownTemplate, type TemplateLookup, type TemplateSourced,
} from '../../core/transactional/send-template';
import { compile, fieldErrorsOf } from '../validation';
import { MAX_CONTENT_BYTES, MAX_TEMPLATE_ID_LENGTH, sendSchema } from './send-schema';

const validateSchema = compile(sendSchema);

/** A valid send: the body to store (template merged, batch_code cleaned) and what idempotency compares. */
export interface ValidatedSend {
  body: SendRequestBody;
  /**
   * What the client asked, for Idempotency-Key: the validated body, with template_id in place of
   * what the template gave. Made when asked for: only a request with a key needs it.
   */
  fingerprint(): string;
}

/**
 * Validates a send body and returns it normalised (nulls, empty collections and unknown keys
 * removed, the template of template_id merged, batch_code cleaned). Throws a validation_error
 * whose fields map paths (from.email, recipients[0].to.email, attachments[0].data) to the spec's
 * codes, every problem of the body at once. The body has passed the door's structure limits, so
 * recursion is bounded. `findTemplate` looks up the sending account's templates.
 */
export async function validateSendBody(raw: unknown, findTemplate: TemplateLookup): Promise<ValidatedSend> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw errors.badRequest('Request body must be a JSON object');
  }
  let body = withoutEmptyCollections(withoutNulls(raw) as Record<string, unknown>);
  const fields: Record<string, FieldError> = {};
  const add = (field: string, code: ValidationCode, message?: string) => { fields[field] ??= fieldError(code, message); };

  // The template first, so the schema and the substitution language check what will be sent.
  const templateId = typeof body.template_id === 'string' ? body.template_id : undefined;
  let sourced: TemplateSourced = new Set();
  if (templateId !== undefined && templateId.length <= MAX_TEMPLATE_ID_LENGTH) {
    const template = await findTemplate(templateId);
    if (template) ({ body, sourced } = mergeTemplate(body, template));
    else fields.template_id = unknownTemplate(templateId);
  }
  // An error in a value the template gave is the template's: reported on template_id.
  const report = (field: string, error: FieldError) => {
    if (sourcedFieldOf(field, sourced) === undefined) fields[field] ??= error;
    else fields.template_id ??= templateValueError(templateId!, field, error);
  };

  if (!validateSchema(body)) {
    for (const [field, error] of Object.entries(fieldErrorsOf(schemaErrors(validateSchema.errors)))) {
      const missing = templateId !== undefined && !fields.template_id && error.code === 'required' && ['from', 'subject', 'content'].includes(field);
      report(field, missing ? missingFromBoth(field, templateId) : error);
    }
  }
  // Content checks of the attachments the schema could read, even when other fields failed (all errors at once).
  if (Array.isArray(body.attachments) && body.attachments.length <= MAX_ATTACHMENTS) {
    const readable = body.attachments.map((item, index) => ({ item, index })).filter(({ item }) => isAttachmentShaped(item));
    const problems = await checkAttachments(readable.map(({ item }) => item as Attachment));
    for (const problem of problems) add(`attachments[${readable[problem.index].index}].${problem.field}`, 'invalid_value', problem.message);
  }
  if (typeof body.launch_date === 'string' && !fields.launch_date && Number.isNaN(launchInstant(body.launch_date))) {
    add('launch_date', 'invalid_value', 'Not a real date and time');
  }
  const content = body.content as { html?: unknown; text?: unknown } | undefined;
  if (content && typeof content === 'object') {
    if (!content.html && !content.text) {
      add('content', 'required_at_least_one', sourced.has('content.html') ? `Neither the request nor template ${templateId} gives html or text` : 'html or text is required');
    }
    // The spec's 300KB is of the text sent: UTF-8 bytes, so 300K characters outside ASCII do not pass.
    for (const part of ['html', 'text'] as const) {
      const value = content[part];
      if (typeof value === 'string' && Buffer.byteLength(value, 'utf8') > MAX_CONTENT_BYTES) {
        report(`content.${part}`, fieldError('max_length_exceeded', `At most ${MAX_CONTENT_BYTES / 1024} KB (${MAX_CONTENT_BYTES} bytes of UTF-8)`));
      }
    }
  }
  const headers = body.headers;
  if (isObject(headers)) {
    for (const name of Object.keys(headers)) {
      if (!isAllowedCustomHeader(name)) {
        add(`headers.${name}`, 'invalid_value', 'Only X- headers and List-Id, List-Help, List-Archive, List-Owner, List-Post, References, In-Reply-To, Keywords, Comments may be set');
      }
    }
  }
  // Templates of the substitution language: a malformed one is refused now, not at send time.
  for (const [field, reason] of Object.entries(templateErrors(body))) report(field, fieldError('invalid_value', reason));
  if (Object.keys(fields).length > 0) throw errors.validation(fields);

  const valid = body as unknown as SendRequestBody;
  if (valid.batch_code !== undefined) valid.batch_code = valid.batch_code.toLowerCase().replace(/[^a-z0-9]/g, '');
  return { body: valid, fingerprint: () => fingerprintOf(valid, templateId, sourced) };
}

/**
 * The request as the client gave it, validated: a retry with the same Idempotency-Key matches it
 * even when the template was edited meanwhile (the first request's answer is replayed).
 */
function fingerprintOf(body: SendRequestBody, templateId: string | undefined, sourced: TemplateSourced): string {
  if (templateId === undefined) return JSON.stringify(body);
  const own: Record<string, unknown> = { template_id: templateId, ...body };
  for (const field of ['from', 'reply_to', 'subject'] as const) if (sourced.has(field)) delete own[field];
  if (sourced.has('content.html')) own.content = { ...body.content, html: undefined };
  return JSON.stringify(own);
}

/**
 * ajv's errors, each once on the field it is about. The `if` keyword's own is dropped: when
 * from/subject/content are missing without a template, `then` names each, and `if` adds a vague
 * one on the body. A key too long (a header's name over 900 characters) is reported on that key,
 * `headers.<name>`, with its code, rather than on `headers` plus a second, code-less error.
 */
function schemaErrors(list: ErrorObject[] | null | undefined): ErrorObject[] {
  return (list ?? [])
    .filter((error) => error.keyword !== 'if' && error.keyword !== 'propertyNames')
    .map((error) => (error.propertyName === undefined ? error
      : { ...error, instancePath: `${error.instancePath}/${error.propertyName.replace(/~/g, '~0').replace(/\//g, '~1')}` }));
}

function isAttachmentShaped(item: unknown): item is Attachment {
  if (typeof item !== 'object' || item === null) return false;
  const { file_name: fileName, mime_type: mimeType, data } = item as Record<string, unknown>;
  return typeof fileName === 'string' && typeof mimeType === 'string' && typeof data === 'string';
}

/** Optional collections, by where they sit: the Java SDK sends each unset one as [] or {}. */
const OPTIONAL_COLLECTIONS = ['attachments', 'headers', 'substitutions', 'tags', 'tracking'];
const OPTIONAL_RECIPIENT_COLLECTIONS = ['cc', 'bcc', 'substitutions', 'custom_args', 'tags'];
const OPTIONAL_TRACKING_PARTS = ['open', 'click', 'analytics'];

const isEmptyCollection = (value: unknown) =>
  (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Empty optional collections mean absent: removed, so the stored body holds only what is sent. */
function withoutEmptyCollections(body: Record<string, unknown>): Record<string, unknown> {
  const drop = (object: Record<string, unknown>, keys: string[]) => {
    for (const key of keys) if (isEmptyCollection(object[key])) delete object[key];
  };
  if (isObject(body.tracking)) drop(body.tracking, OPTIONAL_TRACKING_PARTS);
  drop(body, OPTIONAL_COLLECTIONS);
  if (Array.isArray(body.recipients)) {
    for (const recipient of body.recipients) if (isObject(recipient)) drop(recipient, OPTIONAL_RECIPIENT_COLLECTIONS);
  }
  return body;
}

/** The Java SDK sends unset fields as null: treat null as absent, at every depth of objects. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child !== null) out[key] = withoutNulls(child);
  }
  return out;
}
