// The HTTP load generator on a thread of its own. herald-send runs Herald's worker in the
// benchmark's main thread; a client sharing that busy event loop would read each answer late and
// report the worker's work as accept latency. In a deployment the clients are elsewhere.
import { once } from 'node:events';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';
import { sendRequestBody } from './mail';
import { runPool, type PoolResult } from './support';

const ROLE = 'herald-bench-load';

/** `count` single-recipient sends (bench/mail.ts's sendRequestBody(first + i)), `concurrency` at a time, each client its own keep-alive connection. */
export interface SendLoad { apiBase: string; transactionalKey: string; first: number; count: number; concurrency: number; timeoutMs: number }

/** The latency of each accepted request (ms), and the load's duration measured on its own thread. */
export interface LoadResult extends PoolResult<number> { durationMs: number }

interface Start { role: typeof ROLE; load: SendLoad }

/**
 * Starts the thread, waits until it is ready (modules loaded), then calls `onGo` right before the
 * load starts, so the caller's clock starts with it.
 */
export async function runSendLoad(load: SendLoad, onGo: () => void): Promise<LoadResult> {
  const worker = new Worker(__filename, { workerData: { role: ROLE, load } satisfies Start });
  try {
    const failed = once(worker, 'error').then(([error]) => { throw error; });
    await Promise.race([once(worker, 'message'), failed]); // ready
    onGo();
    worker.postMessage('go');
    const [result] = await Promise.race([once(worker, 'message'), failed]) as [LoadResult];
    return result;
  } finally {
    await worker.terminate();
  }
}

/** The thread's side: one undici Pool, each request's body read to the end so its connection is reused. */
async function generate({ apiBase, transactionalKey, first, count, concurrency, timeoutMs }: SendLoad): Promise<LoadResult> {
  const client = new Pool(apiBase, { connections: concurrency });
  try {
    const post = async (i: number) => {
      const t0 = performance.now();
      const res = await client.request({
        method: 'POST', path: '/v1/mail/send', body: sendRequestBody(first + i),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${transactionalKey}` },
      });
      const text = await res.body.text();
      if (res.statusCode !== 202) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
      return performance.now() - t0;
    };
    const started = performance.now();
    const pool = await runPool(count, concurrency, timeoutMs, post);
    return { ...pool, durationMs: performance.now() - started };
  } finally {
    await client.close();
  }
}

if (!isMainThread && (workerData as Start | undefined)?.role === ROLE) {
  parentPort!.postMessage('ready');
  parentPort!.once('message', () => {
    generate((workerData as Start).load).then(
      (result) => parentPort!.postMessage(result),
      (error: Error) => { throw error; }, // an 'error' event on the caller's side
    );
  });
}
