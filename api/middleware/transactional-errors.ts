import type { Context, Next } from 'koa';
import { HttpError, httpErrors } from '../errors';

/** Renders every failure under /v1 in the transactional error shape; internals are logged, never sent. */
export async function transactionalErrors(ctx: Context, next: Next) {
  try {
    await next();
  } catch (caught) {
    const error = asHttpError(caught);
    if (error.status >= 500) ctx.state.log?.error({ err: caught }, 'request failed');
    ctx.status = error.status;
    ctx.body = {
      success: false,
      error: { status: error.status, type: error.type, message: error.message, ...(error.errors ? { errors: error.errors } : {}) },
    };
  }
}

function asHttpError(caught: unknown): HttpError {
  if (caught instanceof HttpError) return caught;
  // Body parser failures carry their own status (413 too large, 400 bad JSON, 415 type).
  const status = (caught as { status?: unknown }).status;
  if (status === 413) return httpErrors.badRequest('Request body exceeds the 10MB limit');
  if (status === 415) return httpErrors.badRequest('Content-Type must be application/json');
  if (status === 400) return httpErrors.badRequest('Request body is not valid JSON');
  return httpErrors.internal();
}
