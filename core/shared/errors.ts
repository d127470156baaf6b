// The one error model of the whole service. Domain code throws AppError through the
// factories below: a code, a client-safe message and the domain's details, nothing of a
// protocol. Each edge maps the code to its own answer: api/http-errors.ts to an HTTP status
// and headers (rendered by api/render.ts), smtp/replies.ts to an SMTP reply code; and
// nothing that is not an AppError ever reaches a client.

export enum ErrorCode {
  BadRequest = 'BAD_REQUEST',
  Validation = 'VALIDATION_ERROR',
  Unauthorized = 'UNAUTHORIZED',
  Forbidden = 'FORBIDDEN',
  NotFound = 'NOT_FOUND',
  /** Raised only by the HTTP edge (api/http-errors.ts): a method no route takes. */
  MethodNotAllowed = 'METHOD_NOT_ALLOWED',
  Conflict = 'RESOURCE_EXISTS',
  /** Raised only by the HTTP edge (api/http-errors.ts): a body of a type the route does not read. */
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
  /** Raised only by the HTTP edge (api/http-errors.ts): a body over the route's limit. */
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  /** A limit counted over time (custom trigger events an hour): `retryAfterSeconds` says when it resets. */
  TooManyRequests = 'TOO_MANY_REQUESTS',
  Internal = 'INTERNAL_ERROR',
  /** Temporary: the store or Temporal is down, a concurrent change is under way, or a quota is used up. */
  Unavailable = 'SERVICE_UNAVAILABLE',
  /** Login with an email registered in several accounts: `data` lists them. */
  AccountRequired = 'ACCOUNT_REQUIRED',
  /** Login with an expired password: repeat it with a newPassword. */
  PasswordExpired = 'PASSWORD_EXPIRED',
  /** A campaign launch refused by its validation: `moreInfo` says where to read why. */
  InvalidRequest = 'INVALID_REQUEST',
}

/** The transactional API's validation codes (the spec's list). */
export type ValidationCode = 'required' | 'required_at_least_one' | 'max_length_exceeded' | 'too_many_items' | 'invalid_value';

/** One invalid field: the transactional API shows the code, the account API the message. */
export interface FieldError { code: ValidationCode; message: string }

/** What an error carries beside its code and message; each edge decides how to show it. */
export interface ErrorDetails {
  fields?: Record<string, FieldError>;
  /** Data the client needs to repeat the request (the accounts of ACCOUNT_REQUIRED). */
  data?: unknown;
  /** A URL that explains the error (a refused launch: its validation). */
  moreInfo?: string;
  /** When a retry may succeed (a limit that resets at the next hour). */
  retryAfterSeconds?: number;
}

export class AppError extends Error {
  constructor(readonly code: ErrorCode, message: string, readonly extra: ErrorDetails = {}) {
    super(message);
    this.name = 'AppError';
  }
}

const FIELD_MESSAGES: Record<ValidationCode, string> = {
  required: 'This field is required',
  required_at_least_one: 'At least one element is required',
  max_length_exceeded: 'Too long',
  too_many_items: 'Too many elements',
  invalid_value: 'Invalid value',
};

/** A field error with the standard message for its code, unless one is given. */
export function fieldError(code: ValidationCode, message = FIELD_MESSAGES[code]): FieldError {
  return { code, message };
}

export const errors = {
  badRequest: (message: string) => new AppError(ErrorCode.BadRequest, message),
  validation: (fields: Record<string, FieldError>) =>
    new AppError(ErrorCode.Validation, 'Some fields have invalid values', { fields }),
  unauthorized: (message = 'Credentials invalid or missing') => new AppError(ErrorCode.Unauthorized, message),
  forbidden: (message: string) => new AppError(ErrorCode.Forbidden, message),
  notFound: (message = 'No resource at this address') => new AppError(ErrorCode.NotFound, message),
  conflict: (message: string, fields?: Record<string, FieldError>, data?: unknown) => new AppError(ErrorCode.Conflict, message, { fields, data }),
  tooManyRequests: (message: string, retryAfterSeconds?: number) =>
    new AppError(ErrorCode.TooManyRequests, message, retryAfterSeconds ? { retryAfterSeconds } : {}),
  accountRequired: (accounts: string[]) => new AppError(ErrorCode.AccountRequired,
    'This email belongs to several accounts: repeat the login naming one of them in "account"', { data: accounts }),
  passwordExpired: () => new AppError(ErrorCode.PasswordExpired, 'The password has expired: repeat the login with a "newPassword"'),
  invalidRequest: (message: string, moreInfo: string) => new AppError(ErrorCode.InvalidRequest, message, { moreInfo }),
  internal: () => new AppError(ErrorCode.Internal, 'Unexpected server error'),
  unavailable: (message = 'Service temporarily unavailable, please retry') => new AppError(ErrorCode.Unavailable, message),
};
