import type { Context, Next } from 'koa';
import { AppError, errors } from '../../core/shared/errors';
import { httpErrors, httpStatusOf } from '../http-errors';
import { toAppError } from '../../core/shared/faults';
import { rendererFor } from '../render';

/**
 * The outermost handler: every failure, and every path or method no route answers, becomes
 * a JSON error in the shape of the interface the path belongs to. Faults are logged with the
 * request id; clients see only the error model's message.
 */
export async function errorBoundary(ctx: Context, next: Next) {
  try {
    await next();
    if (ctx.body == null) {
      // Koa's default for an unhandled path; the routers' allowedMethods() set 405/501 and Allow.
      if (ctx.status === 404) throw errors.notFound(`No resource at ${ctx.method} ${ctx.path}`);
      if (ctx.status === 405 || ctx.status === 501) throw httpErrors.methodNotAllowed(allowedMethods(ctx));
    }
  } catch (caught) {
    let error = toAppError(caught);
    const status = httpStatusOf(error);
    if (status >= 500) {
      ctx.state.log?.error({ err: caught, status }, 'request failed');
      if (!(caught instanceof AppError)) error = withRequestId(error, ctx.state.requestId);
    }
    rendererFor(ctx.path)(ctx, error);
  }
}

function allowedMethods(ctx: Context): string[] {
  return ctx.response.get('Allow').split(',').map((m) => m.trim()).filter(Boolean);
}

/** A fault's message names the request id, so a user can point support at the log line. */
function withRequestId(error: AppError, requestId: string | undefined): AppError {
  return requestId ? new AppError(error.code, `${error.message} (request id ${requestId})`, error.extra) : error;
}
