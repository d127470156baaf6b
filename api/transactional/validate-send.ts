import { errors, fieldError, type FieldError, type ValidationCode } from '../../core/errors';
import { checkAttachments, MAX_ATTACHMENTS, type Attachment } from '../../core/transactional/attachments';
import { isAllowedCustomHeader } from '../../core/transactional/headers';
import { templateErrors } from '../../core/transactional/personalise';
import { launchInstant, type SendRequestBody } from '../../core/transactional/request';
import { compile, fieldErrorsOf } from '../validation';
import { NOT_YET_SUPPORTED, sendSchema } from './send-schema';

const validateSchema = compile(sendSchema);

/**
 * Validates a send body and returns it normalised (nulls, empty attachments and unknown keys
 * removed, batch_code cleaned). Throws a validation_error whose fields map paths (from.email,
 * recipients[0].to.email, attachments[0].data) to the spec's codes, every problem of the body
 * at once. The body has passed the door's structure limits, so recursion is bounded.
 */
export async function validateSendBody(raw: unknown): Promise<SendRequestBody> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw errors.badRequest('Request body must be a JSON object');
  }
  const body = withoutNulls(raw) as Record<string, unknown>;
  const fields: Record<string, FieldError> = {};
  const add = (field: string, code: ValidationCode, message?: string) => { fields[field] ??= fieldError(code, message); };

  // Before the schema drops unknown keys: these are known, and not honoured yet.
  for (const field of NOT_YET_SUPPORTED) {
    if (isPresent(body[field])) add(field, 'invalid_value', 'Not supported yet by this server');
  }
  // `"attachments": []` means none: not kept, so the stored body holds only what is sent.
  if (Array.isArray(body.attachments) && body.attachments.length === 0) delete body.attachments;
  if (!validateSchema(body)) {
    for (const [field, error] of Object.entries(fieldErrorsOf(validateSchema.errors))) fields[field] ??= error;
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
  if (content && typeof content === 'object' && !content.html && !content.text) add('content', 'required_at_least_one');
  const headers = body.headers;
  if (headers && typeof headers === 'object') {
    for (const name of Object.keys(headers)) {
      if (!isAllowedCustomHeader(name)) {
        add(`headers.${name}`, 'invalid_value', 'Only X- headers and List-Id, List-Help, List-Archive, List-Owner, List-Post, References, In-Reply-To, Keywords, Comments may be set');
      }
    }
  }
  // Templates of the substitution language: a malformed one is refused now, not at send time.
  for (const [field, reason] of Object.entries(templateErrors(body))) add(field, 'invalid_value', reason);
  if (Object.keys(fields).length > 0) throw errors.validation(fields);

  const valid = body as unknown as SendRequestBody;
  if (valid.batch_code !== undefined) valid.batch_code = valid.batch_code.toLowerCase().replace(/[^a-z0-9]/g, '');
  return valid;
}

function isAttachmentShaped(item: unknown): item is Attachment {
  if (typeof item !== 'object' || item === null) return false;
  const { file_name: fileName, mime_type: mimeType, data } = item as Record<string, unknown>;
  return typeof fileName === 'string' && typeof mimeType === 'string' && typeof data === 'string';
}

/** The Java SDK sends unset collections as [] or {}: those mean absent too. */
function isPresent(value: unknown): boolean {
  if (value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return true;
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
