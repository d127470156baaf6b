// Pacing: an account's sender takes requests from its queue as fast as the worker and the relay
// allow. When the API takes them faster, the queue only grows, and each new request waits longer
// for the relay. So once a request is stored and queued (it is durable, and will be sent either
// way), its answer waits while more than AHEAD_LIMIT requests of the account wait for the
// sender, for MAX_WAIT_MS at most: clients sending one request after another then send at the
// rate their mail goes out, and a request's time to the relay stays bounded. A lone request, or
// a burst the sender keeps up with, waits for nothing.
import { setTimeout as sleep } from 'node:timers/promises';
import { ReadBatch } from '../../adapters/batching/read-batch';
import type { Store } from '../../adapters/store/store';
import { perStore } from '../../adapters/store/per-store';

export interface Pacing {
  /** Requests of the account not yet taken by its sender beyond which an answer waits. */
  aheadLimit: number;
  /** The longest an answer waits (a sender that is down, or retrying its relay, holds no one for long). */
  maxWaitMs: number;
  /** How often a waiting answer looks again. */
  recheckMs: number;
}

export const PACING: Pacing = { aheadLimit: 100, maxWaitMs: 1000, recheckMs: 20 };

/** The accounts' counts of untaken entries asked for in one turn, in one query. */
const untaken = perStore((store) => new ReadBatch<string, number>(async (accounts) => {
  const rows = await store.sendQueue.aggregate<{ _id: string; n: number }>([
    { $match: { account: { $in: accounts }, taken: { $exists: false } } },
    { $group: { _id: '$account', n: { $sum: 1 } } },
  ]).toArray();
  return new Map(rows.map((row) => [row._id, row.n]));
}));

/** Resolves once the account's sender is within `aheadLimit` of its queue's end, or after `maxWaitMs`. */
export async function paced(store: Store, account: string, pacing: Pacing = PACING): Promise<void> {
  const deadline = Date.now() + pacing.maxWaitMs;
  while (((await untaken(store).get(account)) ?? 0) > pacing.aheadLimit && Date.now() < deadline) await sleep(pacing.recheckMs);
}
