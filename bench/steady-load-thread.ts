// Single sends at a steady rate, on a thread of its own, open loop: each request starts at its
// scheduled time whether or not the earlier ones were answered, as independent clients' requests
// do, so a slow answer shows as latency instead of lowering the rate. Each 202 is timed on the
// clock the counting sink times arrivals with (absoluteNow), so the two can be subtracted.
import { once } from 'node:events';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';
import { absoluteNow } from './counting-sink';
import { sendRequestBody } from './mail';
import { percentile } from './stats';
import type { Teardown } from './support';

const ROLE = 'herald-bench-steady-load';
/** Bodies built ahead of their time (a second's worth at least): building one (~15 KB, ~50 µs) never delays a send. */
const LOOKAHEAD_S = 1;
const lookaheadOf = (ratePerS: number) => Math.max(1, Math.ceil(ratePerS * LOOKAHEAD_S));
/** Connections enough that requests never queue for one (in flight ≈ rate × accept latency). */
const CONNECTIONS = 100;
/** How long a stopped stream waits for its last answers. */
const DRAIN_MS = 60_000;

/** bench/mail.ts's sendRequestBody(first + i) for i = 0, 1, …, `ratePerS` a second, until `count` were sent or the stream is stopped. */
export interface SteadyLoad { apiBase: string; transactionalKey: string; first: number; ratePerS: number; count: number }

/** One accepted request: its index (recipientOf(index) is its address), when its 202 came (absoluteNow()), and how long that took. */
export interface SteadySend { index: number; acceptedAt: number; acceptMs: number }

export interface SteadyResult {
  sends: SteadySend[];
  /** Requests started (sends + errors + any left unanswered after the drain). */
  started: number;
  errors: number;
  firstError?: string;
  /** The first start to the stream's end (its count reached, or stopped). */
  durationMs: number;
  /** How late the starts were against their schedule (the thread's own delay), at the 99th percentile. */
  p99StartLagMs: number;
}

export interface SteadyStream {
  /** Starts the stream; resolves once it ended (count reached, or stopped) and its requests were answered. */
  go(): Promise<SteadyResult>;
  /** Ends the stream: no request starts after this. */
  stop(): void;
}

/** Starts the thread and waits until it is ready (modules loaded, the first bodies built). */
export async function prepareSteadyLoad(load: SteadyLoad, teardown: Teardown): Promise<SteadyStream> {
  const worker = new Worker(__filename, { workerData: { role: ROLE, load } });
  teardown.defer('steady load thread', () => worker.terminate());
  const failed = once(worker, 'error').then(([error]) => { throw error; });
  failed.catch(() => undefined); // observed by whoever awaits it; a failure before go() surfaces there
  await Promise.race([once(worker, 'message'), failed]);
  return {
    async go() {
      try {
        worker.postMessage('go');
        const [result] = await Promise.race([once(worker, 'message'), failed]) as [SteadyResult];
        return result;
      } finally {
        await worker.terminate();
      }
    },
    stop() { worker.postMessage('stop'); },
  };
}

/**
 * The stream's request bodies, built ahead of their time (`buildUntil`, between starts): `take(i)`
 * hands over body i and drops it here, so a stream as long as a campaign holds only a second's
 * worth of 15 KB bodies, not all of them.
 */
function bodiesAhead(first: number) {
  const bodies = new Map<number, string>();
  let built = 0;
  const buildUntil = (until: number) => { for (; built < until; built += 1) bodies.set(built, sendRequestBody(first + built)); };
  return {
    buildUntil,
    take(i: number): string {
      buildUntil(i + 1); // only if the stream outran the lookahead
      const body = bodies.get(i)!;
      bodies.delete(i);
      return body;
    },
  };
}

/** The thread's side: the schedule, its requests over one undici Pool, every answer read to the end so its connection is reused. */
async function stream({ apiBase, transactionalKey, first, ratePerS, count }: SteadyLoad, stopped: () => boolean, bodies: ReturnType<typeof bodiesAhead>): Promise<SteadyResult> {
  const client = new Pool(apiBase, { connections: CONNECTIONS });
  const result: SteadyResult = { sends: [], started: 0, errors: 0, durationMs: 0, p99StartLagMs: 0 };
  const lags: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const interval = 1000 / ratePerS;
  const lookahead = lookaheadOf(ratePerS);
  const post = async (index: number, body: string) => {
    const t0 = performance.now();
    const res = await client.request({
      method: 'POST', path: '/v1/mail/send', body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${transactionalKey}` },
    });
    const acceptedAt = absoluteNow();
    const acceptMs = performance.now() - t0;
    const text = await res.body.text();
    if (res.statusCode !== 202) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    result.sends.push({ index, acceptedAt, acceptMs });
  };
  try {
    const start = performance.now();
    let i = 0;
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        // Every start whose time came goes now, late ones included: the schedule is not shifted by a slow moment.
        while (i < count && !stopped() && start + i * interval <= now) {
          lags.push(now - (start + i * interval));
          const sent: Promise<void> = post(first + i, bodies.take(i))
            .catch((error: Error) => { result.errors += 1; result.firstError ??= error.message; })
            .finally(() => inFlight.delete(sent));
          inFlight.add(sent);
          i += 1;
        }
        bodies.buildUntil(Math.min(count, i + lookahead));
        if (i >= count || stopped()) { result.durationMs = now - start; resolve(); return; }
        setTimeout(tick, Math.max(0, start + i * interval - performance.now()));
      };
      tick();
    });
    result.started = i;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(inFlight), new Promise((resolve) => { timer = setTimeout(resolve, DRAIN_MS); })]);
    clearTimeout(timer);
    result.p99StartLagMs = lags.length > 0 ? percentile(lags, 99) : 0;
    return result;
  } finally {
    await client.close().catch(() => undefined);
  }
}

if (!isMainThread && (workerData as { role?: string } | undefined)?.role === ROLE) {
  const { load } = workerData as { load: SteadyLoad };
  const bodies = bodiesAhead(load.first);
  bodies.buildUntil(Math.min(load.count, lookaheadOf(load.ratePerS)));
  let stopped = false;
  parentPort!.on('message', (message: 'go' | 'stop') => {
    if (message === 'stop') { stopped = true; return; }
    stream(load, () => stopped, bodies).then(
      (result) => parentPort!.postMessage(result),
      (error: Error) => { throw error; }, // an 'error' event on the caller's side
    );
  });
  parentPort!.postMessage('ready');
}
