// Event writes that landed late. An event's _id (the order webhook delivery reads in) is made
// before its write, and a delivery pass reads only _ids older than its settle window (5 s), on the
// assumption that every write lands within it (core/webhooks/delivery-pass.ts). A write held up
// longer (a stalled store or worker on a busy machine) can land behind an endpoint's cursor, and
// the pass would never read it. So every writer, once its write is acknowledged, records the
// events it stored too late for the smallest settle window, and each endpoint's pass delivers them
// (core/webhooks/late-events.ts). Acknowledged after the write, so the record exists only for
// events already readable: a pass that finds it can read them.
import { ObjectId } from 'mongodb';
import type { EventDoc, LedgerRowDoc, Store } from '../../adapters/store/store';

/** The smallest settle window a webhook delivery may use: a write slower than this (from its _id's second) is recorded. */
export const MIN_SETTLE_MS = 1000;

/** When a pass with this settle window could first read past an _id: the end of its second (an ObjectId keeps whole seconds), then the window. */
export const readPastFrom = (id: ObjectId, settleMs: number) => id.getTimestamp().getTime() + 1000 + settleMs;

/** Records the events of this write that a pass may have read past; `ackedAt` is when the store acknowledged it. */
export async function noteLateWrites(store: Store, events: Array<Pick<EventDoc, '_id' | 'account'>>, ackedAt = Date.now()): Promise<void> {
  const byAccount = new Map<string, ObjectId[]>();
  for (const event of events) {
    if (ackedAt < readPastFrom(event._id, MIN_SETTLE_MS)) continue;
    const ids = byAccount.get(event.account) ?? [];
    if (ids.length === 0) byAccount.set(event.account, ids);
    ids.push(event._id);
  }
  if (byAccount.size === 0) return;
  await store.lateEvents.insertMany([...byAccount].map(([account, eventIds]) => ({ _id: new ObjectId(), account, eventIds, ackedAt: new Date(ackedAt), handledBy: [] })));
}

/** How far back an earlier attempt's write is looked for (an activity's retry comes within minutes). */
const EARLIER_ATTEMPT_MS = 60 * 60_000;

/**
 * After a send-ledger write that met outcomes already stored (same mail_id): those may be an
 * earlier attempt's write that landed after its writer died, unseen, so they are checked as if
 * written now.
 */
export async function noteLateDuplicates(store: Store, rows: Array<Pick<LedgerRowDoc, '_id' | '_outcome_of'>>): Promise<void> {
  const ours = new Set(rows.map((row) => row._id.toHexString()));
  const since = ObjectId.createFromTime(Math.floor((Date.now() - EARLIER_ATTEMPT_MS) / 1000));
  const stored = await store.events
    .find({ _outcome_of: { $in: rows.map((row) => row._outcome_of) }, _id: { $gte: since } })
    .project<Pick<EventDoc, '_id' | 'account'>>({ _id: 1, account: 1 })
    .toArray();
  await noteLateWrites(store, stored.filter((event) => !ours.has(event._id.toHexString())));
}
