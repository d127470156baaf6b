// The OpenAPI document's shared parts: the answers' shapes (api/account/envelope.ts and
// api/render.ts write them), the error types (core/shared/errors.ts), and the security schemes
// (api/account/auth.ts and api/transactional/auth.ts read them).
import { ErrorCode, type ValidationCode } from '../../core/shared/errors';
import { HTTP_STATUS } from '../http-errors';
import { TRANSACTIONAL_TYPES } from '../render';

/** The transactional API's validation codes, checked complete against ValidationCode below. */
const VALIDATION_CODES = ['required', 'required_at_least_one', 'max_length_exceeded', 'too_many_items', 'invalid_value'] as const;
const _complete: [Exclude<ValidationCode, (typeof VALIDATION_CODES)[number]>] extends [never] ? true : never = true;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const integer = { type: 'integer', minimum: 0 } as const;
const sortFields = {
  sortby: { type: 'string', description: 'The field the page is sorted by.' },
  sortdir: { type: 'string', enum: ['asc', 'desc'] },
} as const;

/** The response schema of an account API answer `{href, success: true, data}` with `data` as given. */
export function dataEnvelope(data: object) {
  return { type: 'object', required: ['href', 'success', 'data'], properties: { href: { type: 'string' }, success: { const: true }, data } } as const;
}

export const schemas: Record<string, object> = {
  Paging: {
    type: 'object',
    required: ['offset', 'limit', 'results', 'total'],
    properties: { offset: integer, limit: integer, results: { ...integer, description: 'Items in this page.' }, total: integer },
  },
  Sort: { type: 'object', required: ['sortby', 'sortdir'], properties: sortFields },
  Envelope: {
    type: 'object',
    description: 'A successful answer of the account API. `data` is the resource (a PUT shows its `id` and only what changed).',
    required: ['success'],
    properties: {
      href: { type: 'string', description: 'The path of the request.' },
      url: { type: 'string', description: 'The path of the request, in place of `href`, on login and logout (as the original answers).' },
      success: { const: true },
      data: {},
    },
  },
  PageEnvelope: {
    type: 'object',
    description: 'A page of a listing, with the paging and sort it used.',
    required: ['href', 'success', 'data', 'paging', 'sort'],
    properties: { href: { type: 'string' }, success: { const: true }, data: { type: 'array' }, paging: ref('Paging'), sort: ref('Sort') },
  },
  AccountError: {
    type: 'object',
    required: ['status', 'type', 'userMessage'],
    properties: {
      status: { type: 'integer', description: 'The HTTP status.' },
      type: { type: 'string', enum: Object.values(ErrorCode) },
      userMessage: { type: 'string' },
      validationErrors: { type: 'object', additionalProperties: { type: 'string' }, description: 'A message per invalid field (`recipients[0].to.email`, `filter[state]`).' },
      moreInfo: { type: 'string', description: 'A URL explaining the error: on `INVALID_REQUEST` (a refused launch), the campaign\'s validation.' },
      data: { description: 'What a client needs to repeat the request: the accounts of `ACCOUNT_REQUIRED`.' },
    },
  },
  AccountErrorResponse: {
    type: 'object',
    required: ['href', 'success', 'error'],
    properties: {
      href: { type: 'string' },
      success: { const: false },
      error: ref('AccountError'),
      data: { description: 'The same as `error.data`, where the original\'s clients read it.' },
    },
  },
  TransactionalError: {
    type: 'object',
    required: ['status', 'type', 'message'],
    properties: {
      status: { type: 'integer', description: 'The HTTP status.' },
      type: { type: 'string', enum: [...new Set(Object.values(TRANSACTIONAL_TYPES))] },
      message: { type: 'string' },
      errors: { type: 'object', additionalProperties: { type: 'string', enum: [...VALIDATION_CODES] }, description: 'A validation code per invalid field (`recipients[0].to.email`).' },
    },
  },
  TransactionalErrorResponse: {
    type: 'object',
    required: ['success', 'error'],
    properties: { success: { const: false }, error: ref('TransactionalError') },
  },
};

/** Where the account API reads credentials (api/account/auth.ts), and the transactional key. */
export const securitySchemes = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'A user\'s API key: `Authorization: Bearer <key>` (also `bearer <key>`, the bare key, or the same in an `Authentication` header).' },
  authToken: { type: 'apiKey', in: 'header', name: 'X-Auth-Token', description: 'A session token from POST /v2/login, or a user\'s API key.' },
  tokenQuery: { type: 'apiKey', in: 'query', name: 'token', description: 'A session token (or API key) as a query parameter.' },
  transactionalKey: { type: 'http', scheme: 'bearer', description: 'A transactional key: `Authorization: Bearer <key>` (also `bearer <key>` or the bare key).' },
} as const;

export type SecurityScheme = keyof typeof securitySchemes;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request', 401: 'Missing or invalid credentials', 403: 'Forbidden', 404: 'Not found', 405: 'Method not allowed',
  409: 'Conflict', 413: 'Request body too large', 415: 'Unsupported media type', 429: 'Too many requests',
  500: 'Unexpected fault', 503: 'Service unavailable',
};

/**
 * How an operation answers its errors: JSON in its interface's shape (api/render.ts), a small
 * HTML page (the links and pages people open in a browser), or either, by what the client asks.
 */
export type ErrorShape = 'transactional' | 'account' | 'page' | 'account-or-page';

const PAGE_CONTENT = {
  'text/html': { schema: { type: 'string', contentMediaType: 'text/html', description: 'A small HTML page saying what went wrong (`text/html`), not JSON.' } },
};

/** The error answer of one status, in the given shape. */
export function errorResponse(status: number, shape: ErrorShape) {
  const transactional = shape === 'transactional';
  const codes = Object.values(ErrorCode).filter((code) => HTTP_STATUS[code] === status);
  const types = codes.map((code) => (transactional ? TRANSACTIONAL_TYPES[code] : code));
  const what = shape === 'page' ? STATUS_TEXT[status] ?? 'Error' : `${STATUS_TEXT[status] ?? 'Error'}: ${types.map((t) => `\`${t}\``).join(' or ')}`;
  const description = shape === 'page' ? `${what}, as an HTML page.` : shape === 'account-or-page' ? `${what} (an HTML page for a browser).` : what;
  const json = { 'application/json': { schema: ref(transactional ? 'TransactionalErrorResponse' : 'AccountErrorResponse') } };
  return {
    description,
    ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds until a retry may succeed.', schema: { type: 'integer', minimum: 1 } } } } : {}),
    content: shape === 'page' ? PAGE_CONTENT : shape === 'account-or-page' ? { ...json, ...PAGE_CONTENT } : json,
  };
}

/** The media type and schema of an HTML page answer (a page route's other statuses, such as the opt-in's 410). */
export const PAGE_ANSWER = PAGE_CONTENT['text/html'].schema;
