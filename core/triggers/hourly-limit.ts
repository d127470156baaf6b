// The hourly limit of an account's custom trigger events (the spec: 200 an hour; beyond, TOO_MANY_REQUESTS
// and the event is discarded). Accepted events are counted in the store, one document per account and
// clock hour (UTC), so every API process shares the count. A count is a conditional `$inc` that
// applies only while there is room, so simultaneous events cannot overshoot the limit together.
import { errors } from '../shared/errors';
import { isDuplicateKey, type Store } from '../../adapters/store/store';
import { TurnBatch, type ItemResult } from '../../adapters/batching/turn-batch';
import { perStore } from '../../adapters/store/per-store';

export const HOUR_MS = 3_600_000;
/** Bounded retries of a count that other processes keep taking room from (then the event is refused as unavailable). */
const MAX_ATTEMPTS = 10;

/** The clock hour (UTC) of an instant: hours since the epoch. */
export const hourOf = (now: Date) => Math.floor(now.getTime() / HOUR_MS);

/** The usage document of an account's hour. */
export const usageId = (account: string, hour: number) => `${account}:${hour}`;

export type HourlyCount =
  | { allowed: true; giveBack: () => Promise<void> }
  | { allowed: false; retryAfterSeconds: number; nextHour: Date };

interface Ask { _id: string; limit: number; expiresAt: Date }

/**
 * Events of one account arriving together are counted with one `$inc` for all of them
 * (adapters/batching/turn-batch.ts) when they all fit; otherwise the room left is granted to the first ones.
 */
const counts = perStore((store) => new TurnBatch<Ask, boolean>(async (asks) => {
  const groups = new Map<string, number[]>();
  asks.forEach(({ _id, limit }, index) => {
    const key = `${_id}\u0000${limit}`;
    groups.set(key, [...(groups.get(key) ?? []), index]);
  });
  const results: Array<ItemResult<boolean>> = new Array(asks.length);
  await Promise.all([...groups.values()].map(async (indexes) => {
    const { _id, limit, expiresAt } = asks[indexes[0]];
    try {
      const granted = await grant(store, _id, limit, indexes.length, expiresAt);
      indexes.forEach((index, i) => { results[index] = { value: i < granted }; });
    } catch (error) {
      for (const index of indexes) results[index] = { error };
    }
  }));
  return results;
}));

/** Adds up to `wanted` events to the hour's count while it stays within `limit`; returns how many were counted. */
async function grant(store: Store, _id: string, limit: number, wanted: number, expiresAt: Date): Promise<number> {
  let room = wanted; // optimistic: the hour usually has room for them all
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const take = Math.min(wanted, room);
    if (take <= 0) return 0;
    if (await store.triggerUsage.findOneAndUpdate({ _id, n: { $lte: limit - take } }, { $inc: { n: take } })) return take;
    const current = await store.triggerUsage.findOne({ _id });
    if (current) {
      room = limit - current.n;
      continue;
    }
    // The hour's first event: create its document at 0, then count. (The conditional update cannot
    // upsert: on a full hour it would insert a second document with the same _id.) A simultaneous
    // first event may create it first; the unique _id refuses the other insert, which is fine.
    await store.triggerUsage.updateOne({ _id }, { $setOnInsert: { n: 0, expiresAt } }, { upsert: true }).catch((error: unknown) => {
      if (!isDuplicateKey(error)) throw error;
    });
    await removeOldHours(store, _id);
    room = limit;
  }
  throw errors.unavailable('Too many custom trigger events at once: retry in a moment');
}

/** The account's expired hours (the embedded store applies no TTL index): once an hour, when a new hour begins. */
async function removeOldHours(store: Store, _id: string): Promise<void> {
  const account = _id.slice(0, _id.lastIndexOf(':'));
  // The account's documents are the _ids from `<account>:` up to `<account>;` (';' follows ':'); account names hold no ':'.
  await store.triggerUsage.deleteMany({ _id: { $gte: `${account}:`, $lt: `${account};` }, expiresAt: { $lt: new Date() } }).catch(() => undefined);
}

/**
 * Counts one event of the account in the current clock hour, or refuses it when the hour already
 * has `limit` (nothing is counted then). An accepted count can be given back when the event is
 * not accepted after all (its record or its workflow failed). The hour's document expires an
 * hour after the hour ends (a TTL index on MongoDB).
 */
export async function countTriggerEvent(store: Store, account: string, limit: number, now = new Date()): Promise<HourlyCount> {
  const hour = hourOf(now);
  const nextHour = new Date((hour + 1) * HOUR_MS);
  const _id = usageId(account, hour);
  const allowed = limit > 0 && await counts(store).add({ _id, limit, expiresAt: new Date(nextHour.getTime() + HOUR_MS) });
  if (!allowed) return { allowed: false, nextHour, retryAfterSeconds: Math.max(1, Math.ceil((nextHour.getTime() - now.getTime()) / 1000)) };
  return { allowed: true, giveBack: async () => { await store.triggerUsage.updateOne({ _id }, { $inc: { n: -1 } }); } };
}
