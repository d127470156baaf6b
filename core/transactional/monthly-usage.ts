// The monthly limit of an account's messages: every accepted message is counted in a counter
// document per account and calendar month (UTC), shared by every API and SMTP process.
import { errors } from '../shared/errors';
import { isDuplicateKey, type Store } from '../../adapters/store/store';
import { TurnBatch, type ItemResult } from '../../adapters/batching/turn-batch';
import { perStore } from '../../adapters/store/per-store';

/**
 * Counts of requests arriving together without a limit: one `$inc` per counter for all of them
 * (adapters/batching/turn-batch.ts). With a limit each request is counted by itself, since each must fit.
 */
const unlimitedCounts = perStore((store) => new TurnBatch<{ _id: string; count: number }, void>(async (items) => {
  const sums = new Map<string, number>();
  for (const { _id, count } of items) sums.set(_id, (sums.get(_id) ?? 0) + count);
  const outcomes = new Map<string, ItemResult<void>>(await Promise.all([...sums].map(async ([_id, sum]): Promise<[string, ItemResult<void>]> => {
    try {
      await store.counters.updateOne({ _id }, { $inc: { seq: sum } }, { upsert: true });
      return [_id, { value: undefined }];
    } catch (error) {
      return [_id, { error }];
    }
  })));
  return items.map(({ _id }) => outcomes.get(_id)!);
}));

/** `2026-11`: the calendar month (UTC) a message accepted at `now` counts in. */
export function monthOf(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** The counter of an account's messages accepted in a month, in the counters collection. */
export function monthlyCounterId(account: string, month: string): string {
  return `${account}:monthly-messages:${month}`;
}

/**
 * Adds `count` messages to the account's counter of this month, durably and shared by every
 * API and SMTP process: one atomic update of the counter document. With a limit, the update
 * only applies while the counter has room for all of them (`seq <= limit - count`), so
 * simultaneous requests cannot overshoot it together; a request that does not fit counts
 * nothing and is refused. Every accepted message is counted, limit or not, so a limit set in
 * the middle of a month applies to what the month has already sent. Gives back a function
 * that takes the count back out (of the same month's counter) when the request is not accepted after all.
 */
export async function countMonthlyMessages(store: Store, account: string, count: number, limit: number | null, now = new Date()) {
  const _id = monthlyCounterId(account, monthOf(now));
  const giveBack = async () => { await store.counters.updateOne({ _id }, { $inc: { seq: -count } }); };
  if (limit === null) {
    await unlimitedCounts(store).add({ _id, count });
    return { giveBack };
  }
  const fits = () => store.counters.findOneAndUpdate({ _id, seq: { $lte: limit - count } }, { $inc: { seq: count } }, { returnDocument: 'after' });
  let counted = await fits();
  if (!counted && !(await store.counters.findOne({ _id }))) {
    // The month's first request: create the counter at 0, then try again. (The conditional
    // update cannot upsert itself: on a full counter it would try to insert a second document
    // with the same _id.) A simultaneous first request may create it first: the unique _id
    // refuses the other insert, which is fine, the counter exists.
    await store.counters.updateOne({ _id }, { $setOnInsert: { seq: 0 } }, { upsert: true }).catch((error: unknown) => {
      if (!isDuplicateKey(error)) throw error;
    });
    counted = await fits();
  }
  if (!counted) {
    throw errors.unavailable(`MONTHLY limit of ${limit} messages reached: this request's ${count} message(s) do not fit in this month's (UTC) remaining quota`);
  }
  return { giveBack };
}
