// Pacing: an account's sender takes requests from its queue as fast as the worker and the relay
// allow. When the API takes them faster, the queue only grows, and each new request waits longer
// for the relay. So once a request is stored and queued (it is durable, and will be sent either
// way), its answer waits while more than `aheadLimit` requests of the account wait for the
// sender, for `maxWaitMs` at most: clients sending one request after another then send at the
// rate their mail goes out, and a request's time to the relay stays bounded. A lone request, or
// a burst the sender keeps up with, waits for nothing. The answers waiting for one account share
// one look at its queue every `recheckMs`.
import { setTimeout as sleep } from 'node:timers/promises';
import { ReadBatch } from '../../adapters/batching/read-batch';
import type { Store } from '../../adapters/store/store';
import { perStore } from '../../adapters/store/per-store';

export interface Pacing {
  /** Requests of the account not yet taken by its sender beyond which an answer waits. */
  aheadLimit: number;
  /** The longest an answer waits (a sender that is down, or retrying its relay, holds no one for long). */
  maxWaitMs: number;
  /** How often the waiting answers look again. */
  recheckMs: number;
}

export const PACING: Pacing = { aheadLimit: 100, maxWaitMs: 1000, recheckMs: 25 };

interface Waiter { deadline: number; resolve(): void }

/** The accounts' counts of entries their sender has not taken, asked for in one turn: one query. */
const untaken = perStore((store) => new ReadBatch<string, number>(async (accounts) => {
  const rows = await store.sendQueue.aggregate<{ _id: string; n: number }>([
    { $match: { account: { $in: accounts }, taken: { $exists: false } } },
    { $group: { _id: '$account', n: { $sum: 1 } } },
  ]).toArray();
  return new Map(rows.map((row) => [row._id, row.n]));
}));

async function behind(store: Store, account: string, limit: number): Promise<boolean> {
  return ((await untaken(store).get(account)) ?? 0) > limit;
}

/** Per store and account: the answers waiting, and whether a loop looks at the queue for them. */
const gates = perStore(() => new Map<string, { waiters: Waiter[]; looking: boolean }>());

/**
 * Whether the account's sender is more than `aheadLimit` behind: paced()'s first look, which a
 * caller may start early, beside its own writes (the read waits for the store's commit as they
 * do, so it costs the answer no commit of its own), and hand to paced(). False when the store
 * cannot tell: pacing never fails a request.
 */
export function lookAhead(store: Store, account: string, pacing: Pacing = PACING): Promise<boolean> {
  return behind(store, account, pacing.aheadLimit).catch(() => false);
}

/** Resolves once the account's sender is within `aheadLimit` of its queue's end, or after `maxWaitMs`. */
export async function paced(store: Store, account: string, pacing: Pacing = PACING, firstLook = lookAhead(store, account, pacing)): Promise<void> {
  if (!(await firstLook)) return;
  const accounts = gates(store);
  let gate = accounts.get(account);
  if (!gate) accounts.set(account, (gate = { waiters: [], looking: false }));
  const waited = new Promise<void>((resolve) => gate.waiters.push({ deadline: Date.now() + pacing.maxWaitMs, resolve }));
  if (!gate.looking) void look(store, account, gate, pacing);
  return waited;
}

async function look(store: Store, account: string, gate: { waiters: Waiter[]; looking: boolean }, pacing: Pacing): Promise<void> {
  gate.looking = true;
  try {
    while (gate.waiters.length > 0) {
      await sleep(pacing.recheckMs);
      const free = !(await behind(store, account, pacing.aheadLimit).catch(() => false));
      const now = Date.now();
      const [go, stay] = [gate.waiters.filter((w) => free || w.deadline <= now), gate.waiters.filter((w) => !free && w.deadline > now)];
      gate.waiters = stay;
      for (const waiter of go) waiter.resolve();
    }
  } finally {
    gate.looking = false;
  }
}
