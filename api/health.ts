import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Store } from '../core/store';

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
