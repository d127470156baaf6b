import Router from '@koa/router';
import { errors } from '../core/shared/errors';
import { metricsText } from '../adapters/metrics/registry';
import { metricsAuthorized } from '../adapters/metrics/server';
import type { OperationSpec } from './openapi/operation';

/**
 * GET /metrics: this process's Prometheus metrics (in `npm start`, the worker's too: one process,
 * one registry). Open unless HERALD_METRICS_TOKEN is set; then Prometheus sends it as a bearer
 * token (`authorization: {credentials: ...}` in its scrape config).
 */
export function metricsRouter(options: { token?: string }): Router {
  const router = new Router();
  router.get('/metrics', async (ctx) => {
    if (!metricsAuthorized(ctx.get('authorization'), options.token)) throw errors.unauthorized('Send Authorization: Bearer <HERALD_METRICS_TOKEN>');
    const { contentType, body } = await metricsText();
    ctx.type = contentType; // before the body: a string body would otherwise be text/plain without the format's version
    ctx.body = body;
  });
  return router;
}

export const metricsOperations: OperationSpec[] = [{
  method: 'get', path: '/metrics', id: 'getMetrics', tag: 'Service', auth: 'none', summary: 'Prometheus metrics of this process', offline: true,
  description: 'The Prometheus text format (every metric is described in the README). Open by default; when HERALD_METRICS_TOKEN is '
    + 'set, it asks for `Authorization: Bearer <token>` and answers 401 without it.',
  status: 200, response: 'The metrics', responseMediaType: 'text/plain; version=0.0.4', responseSchema: { type: 'string' }, errors: [401],
}];
