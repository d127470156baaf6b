import type { Context } from 'koa';
import { AppError, ErrorCode } from '../core/shared/errors';
import { httpHeadersOf, httpStatusOf } from './http-errors';

/** Writes an AppError as the response, in one interface's shape. */
export type ErrorRenderer = (ctx: Context, error: AppError) => void;

/** The transactional API's error `type` of each error code (its spec's names). */
export const TRANSACTIONAL_TYPES: Record<ErrorCode, string> = {
  [ErrorCode.BadRequest]: 'bad_request',
  [ErrorCode.Validation]: 'validation_error',
  [ErrorCode.Unauthorized]: 'unauthorized',
  [ErrorCode.Forbidden]: 'forbidden',
  [ErrorCode.NotFound]: 'not_found',
  [ErrorCode.MethodNotAllowed]: 'method_not_allowed',
  [ErrorCode.Conflict]: 'conflict',
  [ErrorCode.UnsupportedMediaType]: 'unsupported_media_type',
  [ErrorCode.PayloadTooLarge]: 'payload_too_large',
  [ErrorCode.TooManyRequests]: 'too_many_requests',
  [ErrorCode.Internal]: 'internal_server_error',
  [ErrorCode.Unavailable]: 'service_unavailable',
  [ErrorCode.AccountRequired]: 'account_required',
  [ErrorCode.PasswordExpired]: 'password_expired',
  [ErrorCode.InvalidRequest]: 'invalid_request',
};

/** A message's room for the reasons of invalid fields (a template's line and column, an attachment's format). */
const MAX_REASONS_LENGTH = 2000;

/**
 * The transactional API (/v1): `{success, error: {status, type, message, errors?}}`. `errors`
 * holds only a code per field, as the spec shapes it, so each field's reason goes in `message`.
 */
export const renderTransactional: ErrorRenderer = (ctx, error) => {
  const fields = error.extra.fields;
  const reasons = fields && Object.entries(fields).map(([field, f]) => `${field}: ${f.message}`).join('; ');
  respond(ctx, error, {
    success: false,
    error: {
      status: httpStatusOf(error),
      type: TRANSACTIONAL_TYPES[error.code],
      message: reasons ? `${error.message}. ${reasons}`.slice(0, MAX_REASONS_LENGTH) : error.message,
      ...(fields ? { errors: Object.fromEntries(Object.entries(fields).map(([field, f]) => [field, f.code])) } : {}),
    },
  });
};

/**
 * The account API (/v2) envelope: `{href, success, error: {status, type, userMessage, validationErrors?, moreInfo?, data?}, data?}`.
 * Error data (the accounts of ACCOUNT_REQUIRED) sits in `error.data`, as the spec says, and at
 * the top level too, where the original's clients read it.
 */
export const renderAccount: ErrorRenderer = (ctx, error) => {
  const { fields, data, moreInfo } = error.extra;
  respond(ctx, error, {
    href: ctx.path,
    success: false,
    error: {
      status: httpStatusOf(error),
      type: error.code,
      userMessage: error.message,
      ...(fields ? { validationErrors: Object.fromEntries(Object.entries(fields).map(([field, f]) => [field, f.message])) } : {}),
      ...(moreInfo !== undefined ? { moreInfo } : {}),
      ...(data !== undefined ? { data } : {}),
    },
    ...(data !== undefined ? { data } : {}),
  });
};

/** /v1 is the transactional API; every other path answers in the account API's envelope. */
export function isTransactionalPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

export function rendererFor(path: string): ErrorRenderer {
  return isTransactionalPath(path) ? renderTransactional : renderAccount;
}

function respond(ctx: Context, error: AppError, body: object) {
  ctx.status = httpStatusOf(error);
  ctx.set(httpHeadersOf(error));
  ctx.body = body;
}
