import type { Context, Next } from 'koa';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../adapters/logger';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** Gives every request an id (the caller's X-Request-Id when well formed) and logs it once done. */
export function requestContext(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const given = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // Only method, path and status: query strings and headers may carry secrets.
      ctx.state.log.info({ method: ctx.method, path: loggedPath(ctx.path), status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  };
}

/** A custom trigger address's last two segments are its credential (api/triggers/router.ts): never logged. */
const TRIGGER_ADDRESS = /^(\/events\/customtriggers\/[^/]*\/init)\/.*$/;

function loggedPath(path: string): string {
  return path.replace(TRIGGER_ADDRESS, '$1/…');
}
