// `GET /metrics` of a worker process that runs alone (no API beside it): a bare HTTP server on
// HERALD_WORKER_METRICS_PORT, because the worker has no Koa app. The API serves the same text
// through its router (api/metrics.ts); both check the optional token the same way.
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsText } from './registry';

/** True when no token is configured, or the Authorization header is `Bearer <token>` (compared in constant time). */
export function metricsAuthorized(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const given = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1] ?? '';
  const digest = (value: string) => createHash('sha256').update(value).digest(); // equal lengths for timingSafeEqual
  return timingSafeEqual(digest(given), digest(token));
}

export interface MetricsServer { port: number; close(): Promise<void> }

/** Serves this process's metrics at `GET /metrics` on host:port (port 0: any free one); 404 elsewhere. */
export async function serveMetrics(options: { port: number; host: string; token?: string }): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const answer = (status: number, body: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(body);
    };
    if (path !== '/metrics') return answer(404, 'Not found: metrics are at /metrics\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(405, 'Method not allowed\n', { allow: 'GET, HEAD' });
    if (!metricsAuthorized(request.headers.authorization, options.token)) {
      return answer(401, 'Unauthorized: send Authorization: Bearer <HERALD_METRICS_TOKEN>\n', { 'www-authenticate': 'Bearer' });
    }
    metricsText().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(request.method === 'HEAD' ? undefined : body),
      () => answer(500, 'Metrics could not be collected\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
