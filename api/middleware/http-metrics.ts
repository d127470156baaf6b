import type { Context, Next } from 'koa';
import { metrics } from '../../adapters/metrics/registry';

/** Methods kept as they are in the label; any other becomes OTHER (labels stay a small set). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

interface MatchedLayer { path: unknown; methods: string[] }

/**
 * Counts and times every request by route pattern (`/v2/:account/contacts`, never the raw path:
 * one series per route, no account names), method and final status. It sits outside the error
 * boundary, so a failed request is counted with the status its error rendered.
 */
export async function httpMetrics(ctx: Context, next: Next) {
  const stopTimer = metrics.httpDuration.startTimer();
  let status: number | undefined;
  try {
    await next();
  } catch (error) {
    status = 500; // Koa answers 500 to what got past the boundary
    throw error;
  } finally {
    const labels = { route: routePattern(ctx), method: METHODS.has(ctx.method) ? ctx.method : 'OTHER', status: String(status ?? ctx.status) };
    metrics.httpRequests.inc(labels);
    stopTimer(labels);
  }
}

/**
 * The pattern of the route that answered. koa-router leaves `_matchedRoute` at the last layer
 * it entered: the answering route, unless a router middleware (the account API's
 * authentication) refused first; then the route it guarded is the first route layer of that
 * router (`ctx.router`) that matched path and method. A path whose routes take other methods
 * (405) keeps their pattern; a path no route has is `unmatched`.
 */
function routePattern(ctx: Context): string {
  const { matched = [], router, _matchedRoute: entered } = ctx as { matched?: MatchedLayer[]; router?: { stack: unknown[] }; _matchedRoute?: unknown };
  const routes = matched.filter((layer) => layer.methods.length > 0);
  const forMethod = routes.filter((layer) => layer.methods.includes(ctx.method));
  const layer = forMethod.find((l) => l.path === entered)
    ?? forMethod.find((l) => router?.stack.includes(l))
    ?? forMethod[0]
    ?? routes[0];
  return layer ? String(layer.path) : 'unmatched';
}
