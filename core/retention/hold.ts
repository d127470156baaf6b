// One pruner per account at a time, and the page it is removing (the account's RetentionStateDoc).
// A pruner holds the account for HOLD_MS and renews the hold at each page; one that stopped
// (a crash, a restarted activity) leaves it to expire, and its unfinished page to whoever holds
// the account next, who finishes it before anything else.
import { isDuplicateKey, type RetentionStateDoc, type Store } from '../../adapters/store/store';
import type { PageRollups } from './rollup-writer';
import type { ObjectId } from 'mongodb';

/** Long enough for a page; short enough that a pruner that died does not keep an account from the next run for long. */
export const HOLD_MS = 5 * 60_000;

export interface PendingPage { page: string; ids: ObjectId[]; rollups: PageRollups }

/** Takes (or renews) the account for `holder`; false when another pruner holds it. */
export async function hold(store: Store, account: string, holder: string, now = new Date()): Promise<boolean> {
  try {
    const held = await store.retention.findOneAndUpdate(
      { _id: account, account, $or: [{ holder }, { heldUntil: { $exists: false } }, { heldUntil: { $lt: now } }] },
      { $set: { holder, heldUntil: new Date(now.getTime() + HOLD_MS) }, $setOnInsert: { account } },
      { upsert: true, returnDocument: 'after', projection: { _id: 1 } },
    );
    return held !== null;
  } catch (error) {
    // Held by another: the filter missed the document, and the upsert met its _id.
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/** Lets the account go (the next run takes it at once). */
export async function release(store: Store, account: string, holder: string, lastRun?: RetentionStateDoc['lastRun']): Promise<void> {
  await store.retention.updateOne({ _id: account, account, holder }, { $unset: { holder: 1, heldUntil: 1 }, ...(lastRun ? { $set: { lastRun } } : {}) });
}

/** The page a pruner of the account left unfinished, if any. */
export async function pendingPage(store: Store, account: string): Promise<PendingPage | undefined> {
  const state = await store.retention.findOne({ _id: account, account }, { projection: { pending: 1 } });
  return state?.pending as PendingPage | undefined;
}

/** Records the page about to be removed; throws when the hold was lost (another pruner took the account). */
export async function recordPending(store: Store, account: string, holder: string, pending: PendingPage): Promise<void> {
  const { matchedCount } = await store.retention.updateOne({ _id: account, account, holder }, { $set: { pending } });
  if (matchedCount === 0) throw new HoldLost(account);
}

export async function clearPending(store: Store, account: string, page: string): Promise<void> {
  await store.retention.updateOne({ _id: account, account, 'pending.page': page }, { $unset: { pending: 1 } });
}

/** Another pruner took the account (this one was too slow to renew its hold): this one stops there. */
export class HoldLost extends Error {
  constructor(account: string) {
    super(`another pruner holds account ${account}`);
    this.name = 'HoldLost';
  }
}
