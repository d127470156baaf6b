import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Store } from '../adapters/store/store';
import type { OperationSpec } from './openapi/operation';

/** /healthz: the process is up. /readyz: the store and Temporal both answer. */
export function healthRouter(deps: { store: Store; temporal: Client; namespace: string }): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const [store, temporal] = await Promise.all([
      probe(() => deps.store.db.command({ ping: 1 })),
      probe(() => deps.temporal.connection.withDeadline(Date.now() + PROBE_TIMEOUT_MS, () =>
        deps.temporal.workflowService.describeNamespace({ namespace: deps.namespace }))),
    ]);
    const ready = store && temporal;
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not ready', store: store ? 'up' : 'down', temporal: temporal ? 'up' : 'down' };
  });
  return router;
}

const up = { type: 'string', enum: ['up', 'down'] } as const;
const readiness = {
  type: 'object', required: ['status', 'store', 'temporal'],
  properties: { status: { type: 'string', enum: ['ready', 'not ready'] }, store: up, temporal: up },
} as const;

export const healthOperations: OperationSpec[] = [
  {
    method: 'get', path: '/healthz', id: 'getHealth', tag: 'Service', auth: 'none', summary: 'The process is up', offline: true,
    status: 200, response: 'Up', responseSchema: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
  },
  {
    method: 'get', path: '/readyz', id: 'getReadiness', tag: 'Service', auth: 'none', summary: 'The store and Temporal both answer',
    status: 200, response: 'Ready', responseSchema: readiness,
    responses: { 503: { description: 'Not ready: the answer names what is down', schema: readiness } },
  },
];

const PROBE_TIMEOUT_MS = 2000;

async function probe(check: () => Promise<unknown>, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  try {
    return await Promise.race([check().then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
