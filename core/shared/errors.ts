// The one error model of the whole service. Domain code throws AppError through the
// factories below; each interface renders it in its own shape (api/render.ts for HTTP,
// smtp/replies.ts for SMTP), and nothing that is not an AppError ever reaches a client.

export enum ErrorCode {
  BadRequest = 'BAD_REQUEST',
  Validation = 'VALIDATION_ERROR',
  Unauthorized = 'UNAUTHORIZED',
  Forbidden = 'FORBIDDEN',
  NotFound = 'NOT_FOUND',
  MethodNotAllowed = 'METHOD_NOT_ALLOWED',
  Conflict = 'RESOURCE_EXISTS',
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  TooManyRequests = 'TOO_MANY_REQUESTS',
  Internal = 'INTERNAL_ERROR',
  Unavailable = 'SERVICE_UNAVAILABLE',
  /** Login with an email registered in several accounts: `data` lists them. */
  AccountRequired = 'ACCOUNT_REQUIRED',
  /** Login with an expired password: repeat it with a newPassword. */
  PasswordExpired = 'PASSWORD_EXPIRED',
  /** A campaign launch refused by its validation: `moreInfo` says where to read why. */
  InvalidRequest = 'INVALID_REQUEST',
}

export const STATUS: Record<ErrorCode, number> = {
  [ErrorCode.BadRequest]: 400,
  [ErrorCode.Validation]: 400,
  [ErrorCode.Unauthorized]: 401,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.MethodNotAllowed]: 405,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.UnsupportedMediaType]: 415,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.TooManyRequests]: 429,
  [ErrorCode.Internal]: 500,
  [ErrorCode.Unavailable]: 503,
  [ErrorCode.AccountRequired]: 409,
  [ErrorCode.PasswordExpired]: 401,
  [ErrorCode.InvalidRequest]: 400,
};

/** The transactional API's validation codes (the spec's list). */
export type ValidationCode = 'required' | 'required_at_least_one' | 'max_length_exceeded' | 'too_many_items' | 'invalid_value';

/** One invalid field: the transactional API shows the code, the account API the message. */
export interface FieldError { code: ValidationCode; message: string }

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: {
      fields?: Record<string, FieldError>;
      /** Response headers that belong to the error (Allow, Retry-After). */
      headers?: Record<string, string>;
      /** Data the client needs to repeat the request (the accounts of ACCOUNT_REQUIRED). */
      data?: unknown;
      /** A URL that explains the error (a refused launch: its validation). */
      moreInfo?: string;
    } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = STATUS[code];
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
  methodNotAllowed: (allowed: string[]) => new AppError(ErrorCode.MethodNotAllowed,
    `Method not allowed here; allowed: ${allowed.join(', ') || 'none'}`, { headers: { Allow: allowed.join(', ') } }),
  conflict: (message: string, fields?: Record<string, FieldError>, data?: unknown) => new AppError(ErrorCode.Conflict, message, { fields, data }),
  unsupportedMediaType: (message: string) => new AppError(ErrorCode.UnsupportedMediaType, message),
  payloadTooLarge: (limitBytes: number) =>
    new AppError(ErrorCode.PayloadTooLarge, `Request body exceeds the limit of ${formatBytes(limitBytes)}`),
  tooManyRequests: (message: string, retryAfterSeconds?: number) => new AppError(ErrorCode.TooManyRequests, message,
    retryAfterSeconds ? { headers: { 'Retry-After': String(retryAfterSeconds) } } : {}),
  accountRequired: (accounts: string[]) => new AppError(ErrorCode.AccountRequired,
    'This email belongs to several accounts: repeat the login naming one of them in "account"', { data: accounts }),
  passwordExpired: () => new AppError(ErrorCode.PasswordExpired, 'The password has expired: repeat the login with a "newPassword"'),
  invalidRequest: (message: string, moreInfo: string) => new AppError(ErrorCode.InvalidRequest, message, { moreInfo }),
  internal: () => new AppError(ErrorCode.Internal, 'Unexpected server error'),
  unavailable: (message = 'Service temporarily unavailable, please retry') => new AppError(ErrorCode.Unavailable, message),
};

export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)}MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024}KB`;
  return `${bytes} bytes`;
}
