// The HTTP edge's half of the error model: the one place that says which status and headers
// answer each error code, and the errors only HTTP raises (a method no route at the path
// takes, a body of the wrong media type or over its limit). Every HTTP answer of an error
// (the JSON renderers of api/render.ts, the HTML pages of tracking and opt-in) reads them here.
import { AppError, ErrorCode } from '../core/shared/errors';

export const HTTP_STATUS: Record<ErrorCode, number> = {
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

/** The HTTP status that answers an error. */
export function httpStatusOf(error: AppError): number {
  return HTTP_STATUS[error.code];
}

/** A method no route at the path takes; the answer's Allow header names those that it does. */
export class MethodNotAllowedError extends AppError {
  constructor(readonly allowed: string[]) {
    super(ErrorCode.MethodNotAllowed, `Method not allowed here; allowed: ${allowed.join(', ') || 'none'}`);
  }
}

/** The response headers that belong to an error: Allow for a method not allowed, Retry-After for a limit that resets. */
export function httpHeadersOf(error: AppError): Record<string, string> {
  if (error instanceof MethodNotAllowedError) return { Allow: error.allowed.join(', ') };
  if (error.extra.retryAfterSeconds) return { 'Retry-After': String(error.extra.retryAfterSeconds) };
  return {};
}

/** The errors of HTTP itself, raised by the API's middleware and body readers, never by the domain. */
export const httpErrors = {
  methodNotAllowed: (allowed: string[]) => new MethodNotAllowedError(allowed),
  unsupportedMediaType: (message: string) => new AppError(ErrorCode.UnsupportedMediaType, message),
  payloadTooLarge: (limitBytes: number) =>
    new AppError(ErrorCode.PayloadTooLarge, `Request body exceeds the limit of ${formatBytes(limitBytes)}`),
};

/** A body limit as people write it: 10MB, 64KB, or bytes. */
export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)}MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024}KB`;
  return `${bytes} bytes`;
}
