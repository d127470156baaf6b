// Request validation with ajv, shared by every interface: one ajv, one mapping of its errors to
// the error model's field errors (path → code and message). Keys a schema does not name are
// dropped (removeAdditional), so only validated fields go further.
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { errors, fieldError, type FieldError, type ValidationCode } from '../core/shared/errors';

export const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, removeAdditional: true });
addFormats(ajv, ['email', 'date-time']);

/**
 * Form bodies carry every value as a string and a single value where JSON has an array
 * (`tags=a`, as PHP clients send beside `tags[]=a`): they are validated with coercion to the
 * schema's types ("30" → 30, "a" → ["a"]); JSON keeps its types.
 */
const formAjv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, removeAdditional: true, coerceTypes: 'array' });
addFormats(formAjv, ['email', 'date-time']);

/** The bodies readBody parsed from a form (api/middleware/body.ts). */
const formBodies = new WeakSet<object>();

export function markFormBody(body: object): void {
  formBodies.add(body);
}

/** A route's copy of a body (trimmed, nulls dropped) validated as the body was: as a form's when it was one. */
export function asBody<T extends object>(copy: T, body: unknown): T {
  if (typeof body === 'object' && body !== null && formBodies.has(body)) formBodies.add(copy);
  return copy;
}

/** Field errors of a failed ajv validation, the first per field. */
export function fieldErrorsOf(list: ErrorObject[] | null | undefined): Record<string, FieldError> {
  const fields: Record<string, FieldError> = {};
  for (const error of list ?? []) {
    const [field, code, message] = describe(error);
    fields[field] ??= fieldError(code, message);
  }
  return fields;
}

/** The request schemas, by these very objects (see compile). */
const requestSchemas = new Set<object>();

/** A compiled schema's check: true when valid, else false with `errors` set (as ajv's own). */
export interface Validate {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/**
 * ajv.compile on first use, remembering the schema object: the OpenAPI document shows request
 * bodies by these very objects, and its test checks each documented one is one that ajv validates
 * with. Compiled when first needed, not when the module loads: a process (a CLI command, a worker,
 * each test file) pays only for the routes it serves; every schema's strict compile is a test.
 */
export function compile(schema: object, using: Ajv = ajv): Validate {
  requestSchemas.add(schema);
  let compiled: ReturnType<Ajv['compile']> | undefined;
  const validate: Validate = (value) => {
    compiled ??= using.compile(schema);
    const valid = compiled(value) as boolean;
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
}

/** Whether this very object (not an equal copy) is validated against when requests come. */
export function isRequestSchema(schema: object): boolean {
  return requestSchemas.has(schema);
}

/** Compiles every request schema registered so far, as JSON and as form (a test's strict-mode check). */
export function compileRequestSchemas(): number {
  for (const schema of requestSchemas) {
    ajv.compile(schema);
    formAjv.compile(schema);
  }
  return requestSchemas.size;
}

/** A validator that returns the value typed, or throws VALIDATION_ERROR naming every bad field. */
export function validator<T>(schema: object): (value: unknown) => T {
  const validateJson = compile(schema);
  const validateForm = compile(schema, formAjv);
  return (value) => {
    const validate = typeof value === 'object' && value !== null && formBodies.has(value) ? validateForm : validateJson;
    if (!validate(value)) throw errors.validation(fieldErrorsOf(validate.errors));
    return value as T;
  };
}

function describe(error: ErrorObject): [string, ValidationCode, string | undefined] {
  const path = toFieldPath(error.instancePath);
  const join = (child: string) => (path ? `${path}.${child}` : child);
  const limit = (error.params as { limit?: number }).limit;
  switch (error.keyword) {
    case 'required':
      return [join(String(error.params.missingProperty)), 'required', undefined];
    case 'minItems':
      return [path, 'required_at_least_one', undefined];
    case 'maxItems':
    case 'maxProperties':
      return [path, 'too_many_items', `At most ${limit} elements`];
    case 'maxLength':
      return [path, 'max_length_exceeded', `At most ${limit} characters`];
    case 'minLength':
      return limit === 1 ? [path, 'required', undefined] : [path, 'invalid_value', `At least ${limit} characters`];
    case 'propertyNames':
      return [join(String(error.params.propertyName)), 'invalid_value', 'Invalid name'];
    case 'format':
      return [path || 'body', 'invalid_value', error.params.format === 'email' ? 'Invalid email address' : `Must be ${error.params.format}`];
    case 'enum':
      return [path || 'body', 'invalid_value', `Must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`];
    case 'type':
      return [path || 'body', 'invalid_value', `Must be ${error.params.type}`];
    default:
      return [path || 'body', 'invalid_value', undefined];
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
