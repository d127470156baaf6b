// The body of the public opt-in submit, in every shape its clients send: the original's hosted
// form script (`fields[3]=<email>&fields[1]=<first name>&fields[2]=<last name>&interests[]=<id>
// &redirect=<url>`), Herald's own page (`email`, `firstName`, `lastName`), or the same as JSON.
import { AppError, ErrorCode, fieldError } from '../../core/shared/errors';
import type { OptinRequest } from '../../core/optin/subscribe';
import { normaliseEmail } from '../../core/accounts/users';
import { validator } from '../validation';

/** One line without control characters: names are kept for the contact, never put in a header. */
const name = { type: 'string', maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]*$' } as const;
const email = { type: 'string', format: 'email', maxLength: 254 } as const;
const interestId = { anyOf: [{ type: 'integer', minimum: 1, maximum: 999_999_999 }, { type: 'string', pattern: '^[0-9]{1,9}$' }] } as const;

export const submitSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    email,
    firstName: name,
    lastName: name,
    fields: {
      type: 'object',
      additionalProperties: false,
      description: 'The original\'s built-in field ids (`fields[3]=…`): 3 the email, 1 the first name, 2 the last name. Other ids are ignored.',
      properties: { 1: name, 2: name, 3: email },
    },
    interests: {
      type: 'array', maxItems: 50, items: interestId,
      description: 'Interest ids of the list\'s account (`interests[]=…`); ids of no interest are ignored.',
    },
    redirect: { type: 'string', maxLength: 2000, description: 'An http or https URL the visitor is sent to (303) once the subscription is confirmed.' },
    reply: { type: 'string', enum: ['html', 'json'], description: '`html` for an HTML answer (the hosted page sends it); otherwise the `Accept` header decides.' },
  },
} as const;

interface RawSubmit {
  email?: string; firstName?: string; lastName?: string;
  fields?: { 1?: string; 2?: string; 3?: string };
  interests?: Array<number | string>;
  redirect?: string;
}
const validateSubmit = validator<RawSubmit>(submitSchema);

/** The validated request; a VALIDATION_ERROR (400) whose userMessage a visitor can act on otherwise. */
export function readSubmit(body: unknown): OptinRequest {
  const raw = friendly(() => validateSubmit(prepare(body)));
  const address = raw.email ?? raw.fields?.[3];
  if (!address) throw invalid({ email: fieldError('required', 'An email address is required') });
  return {
    email: normaliseEmail(address),
    firstName: (raw.firstName ?? raw.fields?.[1] ?? '').trim(),
    lastName: (raw.lastName ?? raw.fields?.[2] ?? '').trim(),
    interests: [...new Set((raw.interests ?? []).map(Number))],
    ...(raw.redirect ? { redirect: httpUrl(raw.redirect) } : {}),
  };
}

/** The body's own `reply`, when it names one. */
export function replyAsked(body: unknown): 'html' | 'json' | undefined {
  const reply = typeof body === 'object' && body !== null ? (body as { reply?: unknown }).reply : undefined;
  return reply === 'html' || reply === 'json' ? reply : undefined;
}

/**
 * What clients send, before validation: nulls mean absent, pasted addresses carry spaces, and
 * `interests` arrive as one id (`interests=3`) or, from a form, as the index-keyed object the
 * body reader keeps (`interests[]=3&interests[]=4` → `{0: ['3', '4']}`).
 */
function prepare(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body ?? {};
  const present: Record<string, unknown> = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
  if (typeof present.email === 'string') present.email = present.email.trim();
  const fields = present.fields;
  if (typeof fields === 'object' && fields !== null && typeof (fields as Record<string, unknown>)[3] === 'string') {
    present.fields = { ...fields, 3: ((fields as Record<string, string>)[3]).trim() };
  }
  const interests = present.interests;
  if (typeof interests === 'string' || typeof interests === 'number') present.interests = [interests];
  else if (typeof interests === 'object' && interests !== null && !Array.isArray(interests)) present.interests = Object.values(interests).flat();
  return present;
}

/** Only http(s): no `javascript:` or `data:` URL is ever sent back to a browser. */
function httpUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
  } catch {
    // not a URL: refused below
  }
  throw invalid({ redirect: fieldError('invalid_value', 'Must be an http or https URL') });
}

function friendly<T>(validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    if (error instanceof AppError && error.code === ErrorCode.Validation && error.extra.fields) throw invalid(error.extra.fields);
    throw error;
  }
}

/** The original's form shows `error.userMessage` to the visitor: say what to fix. */
function invalid(fields: NonNullable<AppError['extra']['fields']>): AppError {
  const aboutEmail = Object.keys(fields).some((field) => field === 'email' || field === 'fields[3]');
  const message = aboutEmail ? 'Please enter a valid email address' : 'Please check the form: some fields have invalid values';
  return new AppError(ErrorCode.Validation, message, { fields });
}
