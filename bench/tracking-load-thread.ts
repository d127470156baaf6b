// The load of tracking-hits on a thread of its own (as bench/load-thread.ts does for sends): many
// keep-alive clients GETting tracking links, each request a pixel or a click of one of the
// bench's messages, from a mix of User-Agents and client addresses (X-Forwarded-For). The
// API's answer comes only once the hit's events are stored, so a 200/302 is a durable hit.
import { once } from 'node:events';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';
import { runPool, type PoolResult } from './support';

const ROLE = 'herald-bench-tracking-load';

export interface HitLoad {
  /** The API instances (threads) to spread the clients over. */
  apiBases: string[];
  /** Request paths, taken round-robin (`/t/o/…`, `/t/c/…`). */
  paths: string[];
  userAgents: string[];
  ips: string[];
  /** Requests in flight (one keep-alive connection each). */
  concurrency: number;
  /** The load stops after this long (or after `count` requests). */
  durationMs: number;
  count: number;
}

/** The latency (ms) of each hit answered, its duration, and the answers by status. */
export interface HitResult extends PoolResult<number> { durationMs: number; statuses: Record<string, number> }

interface Start { role: typeof ROLE; load: HitLoad }

/** Starts the thread, waits until it is ready, calls `onGo` right before the load starts. */
export async function runHitLoad(load: HitLoad, onGo: () => void = () => undefined): Promise<HitResult> {
  const worker = new Worker(__filename, { workerData: { role: ROLE, load } satisfies Start });
  try {
    const failed = once(worker, 'error').then(([error]) => { throw error; });
    await Promise.race([once(worker, 'message'), failed]); // ready
    onGo();
    worker.postMessage('go');
    const [result] = await Promise.race([once(worker, 'message'), failed]) as [HitResult];
    return result;
  } finally {
    await worker.terminate();
  }
}

async function generate({ apiBases, paths, userAgents, ips, concurrency, durationMs, count }: HitLoad): Promise<HitResult> {
  const clients = apiBases.map((base) => new Pool(base, { connections: Math.ceil(concurrency / apiBases.length), pipelining: 1 }));
  const statuses: Record<string, number> = {};
  try {
    const get = async (i: number) => {
      const t0 = performance.now();
      const res = await clients[i % clients.length].request({
        method: 'GET', path: paths[i % paths.length],
        headers: { 'user-agent': userAgents[i % userAgents.length], 'x-forwarded-for': ips[i % ips.length] },
      });
      await res.body.dump();
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      if (res.statusCode !== 200 && res.statusCode !== 302) throw new Error(`HTTP ${res.statusCode} for ${paths[i % paths.length].slice(0, 8)}…`);
      return performance.now() - t0;
    };
    const started = performance.now();
    const pool = await runPool(count, concurrency, durationMs, get);
    // Hits still in flight at the deadline finish later and are not counted.
    return { ...pool, results: pool.results.slice(), timedOut: false, durationMs: performance.now() - started, statuses: { ...statuses } };
  } finally {
    await Promise.all(clients.map((client) => client.close()));
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
