import type { Context } from 'koa';

/** The path parameter as an integer id, or NaN (no document has it, so the caller answers 404). */
export function integerParam(ctx: Context, name = 'id'): number {
  const value: unknown = ctx.params[name];
  return typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : NaN;
}
