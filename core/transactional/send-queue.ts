// The send queue: the outbox of accepted transactional requests. The API stores a request, then
// its entry here; the account's sender (./drain.ts) takes entries in their order, sends their
// messages and removes each entry once every message of it has its ledger row. An entry the relay
// deferred stays, with the time it is due again. Entries are small and short-lived, so the
// collection stays small whatever the history: the queue is read by keyset pages on its ObjectId
// _id (an index {account, _id} on MongoDB; the embedded store walks its _id order).
//
// A sender claims (`taken`) the entries it reads before it sends anything of them, which tells the
// API that a request is being sent: an API whose ring failed removes only an entry no sender has
// taken, and otherwise answers 202 (the sender has it).
import { ObjectId } from 'mongodb';
import { insertsPerTurn } from '../../adapters/batching/turn-batch';
import type { SendQueueDoc, Store } from '../../adapters/store/store';
import type { QueuedSend } from '../../adapters/temporal/contracts';

/** Entries of the requests accepted together, one `insertMany`. */
const entryInserts = insertsPerTurn((store) => store.sendQueue);

/** Puts an accepted (stored) request in its account's queue; resolves to its entry's id once stored. */
export async function enqueue(store: Store, account: string, request: QueuedSend): Promise<ObjectId> {
  const _id = new ObjectId();
  await entryInserts(store).add({ _id, account, requestId: request.requestId, batchId: request.batchId });
  return _id;
}

/** Removes an entry no sender has taken (an acceptance undone); false when a sender has it, or it is gone. */
export async function removeUntaken(store: Store, account: string, entryId: ObjectId): Promise<boolean> {
  return (await store.sendQueue.deleteOne({ _id: entryId, account, taken: { $exists: false } })).deletedCount === 1;
}

/** Up to `limit` entries ready to send (not deferred, or due by `now`), in queue order, after `after` when given. */
export function readReady(store: Store, account: string, limit: number, now: Date, after?: ObjectId): Promise<SendQueueDoc[]> {
  return store.sendQueue
    .find({ account, ...(after ? { _id: { $gt: after } } : {}), $or: [{ dueAt: { $exists: false } }, { dueAt: { $lte: now } }] })
    .sort({ _id: 1 })
    .limit(limit)
    .toArray();
}

/**
 * Claims the entries for a sender: those still in the queue, now taken (an entry the API removed
 * meanwhile is left out). One write; a read only when some entry was gone.
 */
export async function claim(store: Store, account: string, entries: SendQueueDoc[]): Promise<SendQueueDoc[]> {
  const untaken = entries.filter((entry) => !entry.taken).map((entry) => entry._id);
  if (untaken.length === 0) return entries;
  const { matchedCount } = await store.sendQueue.updateMany({ _id: { $in: untaken }, account }, { $set: { taken: true } });
  if (matchedCount === untaken.length) return entries;
  const still = await store.sendQueue.find({ _id: { $in: entries.map((entry) => entry._id) }, account }).project<{ _id: ObjectId }>({ _id: 1 }).toArray();
  const kept = new Set(still.map((entry) => entry._id.toHexString()));
  return entries.filter((entry) => kept.has(entry._id.toHexString()));
}

/** Removes the entries of requests whose every message has its ledger row. */
export async function complete(store: Store, account: string, entryIds: ObjectId[]): Promise<void> {
  if (entryIds.length > 0) await store.sendQueue.deleteMany({ _id: { $in: entryIds }, account });
}

/** The relay deferred a recipient of the entry's request: it is sent again from `dueAt`. */
export async function defer(store: Store, entry: SendQueueDoc, deferrals: number, dueAt: Date): Promise<void> {
  await store.sendQueue.updateOne({ _id: entry._id, account: entry.account }, { $set: { deferrals, dueAt } });
}

/** How many entries wait in the account's queue (taken ones included). */
export function waiting(store: Store, account: string): Promise<number> {
  return store.sendQueue.countDocuments({ account });
}

/** When the first deferred entry of the account is due (epoch ms); undefined when none is deferred. */
export async function nextDue(store: Store, account: string): Promise<number | undefined> {
  const [first] = await store.sendQueue.find({ account, dueAt: { $exists: true } }).sort({ dueAt: 1 }).limit(1).project<{ dueAt: Date }>({ _id: 0, dueAt: 1 }).toArray();
  return first?.dueAt.getTime();
}

/** Entries accepted before `before` (their _id's time), up to `limit`, in queue order. */
export function acceptedBefore(store: Store, account: string, before: Date, limit: number): Promise<SendQueueDoc[]> {
  return store.sendQueue.find({ account, _id: { $lt: ObjectId.createFromTime(Math.floor(before.getTime() / 1000)) } }).sort({ _id: 1 }).limit(limit).toArray();
}

/** The accounts with an entry ready to send that was accepted before `before`: queues nobody may be draining. */
export async function accountsWaitingSince(store: Store, before: Date, now: Date): Promise<string[]> {
  const rows = await store.sendQueue.aggregate<{ _id: string }>([
    { $match: { _id: { $lt: ObjectId.createFromTime(Math.floor(before.getTime() / 1000)) }, $or: [{ dueAt: { $exists: false } }, { dueAt: { $lte: now } }] } },
    { $group: { _id: '$account' } },
  ]).toArray();
  return rows.map((row) => row._id);
}
