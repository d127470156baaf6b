import Ajv, { ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { SendRequestBody } from '../../core/transactional/request';
import { httpErrors, ValidationCode } from '../errors';
import { NOT_YET_SUPPORTED, sendSchema } from './send-schema';

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv, ['email']);
const validateSchema = ajv.compile(sendSchema);

/**
 * Validates a send body and returns it normalised (nulls removed, batch_code cleaned).
 * Throws a validation_error whose `errors` maps field paths (from.email, recipients[0].to.email)
 * to the spec's codes.
 */
export function validateSendBody(raw: unknown): SendRequestBody {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw httpErrors.badRequest('Request body must be a JSON object');
  }
  const body = withoutNulls(raw) as Record<string, unknown>;
  const errors: Record<string, ValidationCode> = {};
  if (!validateSchema(body)) {
    for (const error of validateSchema.errors ?? []) {
      const [field, code] = describe(error);
      errors[field] ??= code;
    }
  }
  const content = body.content as { html?: unknown; text?: unknown } | undefined;
  if (content && typeof content === 'object' && !content.html && !content.text) errors.content ??= 'required_at_least_one';
  for (const field of NOT_YET_SUPPORTED) if (field in body) errors[field] ??= 'invalid_value';
  if (Object.keys(errors).length > 0) throw httpErrors.validation(errors);

  const valid = body as unknown as SendRequestBody;
  if (valid.batch_code !== undefined) valid.batch_code = valid.batch_code.replace(/[^a-z0-9]/g, '');
  return valid;
}

function describe(error: ErrorObject): [string, ValidationCode] {
  const path = toFieldPath(error.instancePath);
  const join = (child: string) => (path ? `${path}.${child}` : child);
  switch (error.keyword) {
    case 'required':
      return [join(String(error.params.missingProperty)), 'required'];
    case 'minItems':
      return [path, 'required_at_least_one'];
    case 'maxItems':
    case 'maxProperties':
      return [path, 'too_many_items'];
    case 'maxLength':
      return [path, 'max_length_exceeded'];
    case 'minLength':
      return [path, 'required'];
    case 'propertyNames':
      return [join(String(error.params.propertyName)), 'invalid_value'];
    default:
      return [path || 'body', 'invalid_value'];
  }
}

/** "/recipients/0/to/email" → "recipients[0].to.email" */
function toFieldPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

/** The Java SDK sends unset fields as null: treat null as absent, at every depth of objects. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child !== null && key !== '__proto__') out[key] = withoutNulls(child);
  }
  return out;
}
