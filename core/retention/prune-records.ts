// The rest of an account's history, pruned after its events (./prune-events.ts), page by page:
// - send requests (the bodies of transactional sends) accepted and due before `since`, once none of
//   their messages is left (their events went first, or stay for a reason of their own) and they
//   are out of the send queue;
// - the recipient snapshots of campaigns whose last launch or resend ended before `since` (the
//   recipients' names and fields as they were sent; the campaign keeps its counts);
// - automation runs that ended before `since`, and custom trigger events received before it whose
//   runs have all ended (a run waiting on a timer renders its next email from its event);
// - Idempotency-Key claims past their 24 hours (an expired claim is as good as none).
import type { Collection, Filter } from 'mongodb';
import type { Store } from '../../adapters/store/store';
import { IDEMPOTENCY_HOURS } from '../transactional/idempotency';
import { inPages, type PruneControls, type PruneTuning } from './pages';

/** Records a run keeps (found old but still needed) at most before it leaves the rest of the collection to the next run. */
const MAX_KEPT = 5000;

const FINAL_TASK = ['FINISHED', 'FAILED', 'CANCELLED'];

export interface RecordCounts { requests: number; snapshots: number; runs: number; triggerEvents: number; idempotencyKeys: number }

export async function pruneRecords(store: Store, account: string, since: Date, now: Date, controls: PruneControls, tuning: PruneTuning): Promise<RecordCounts> {
  const run = <T extends { _id: string }>(collection: Collection<T>, filter: Filter<T>, stillNeeded: (ids: string[]) => Promise<Set<string>>) =>
    pruneCollection(collection, account, filter, stillNeeded, controls, tuning);
  const requests = await run(store.sendRequests, {
    acceptedAt: { $lt: since }, $or: [{ launchAt: { $exists: false } }, { launchAt: { $lt: since } }],
  }, async (ids) => {
    const [queued, sent] = await Promise.all([
      store.sendQueue.distinct('requestId', { account, requestId: { $in: ids } }),
      store.ledger.distinct('_ledger.requestId', { account, '_ledger.requestId': { $in: ids } }),
    ]);
    return new Set<string>([...queued, ...sent].map(String));
  });
  const snapshots = await pruneSnapshots(store, account, since, controls, tuning);
  const runs = await run(store.automationRuns, { state: { $ne: 'running' }, ended: { $lt: since } }, async () => new Set());
  const triggerEvents = await run(store.triggerEvents, { receivedAt: { $lt: since } }, async (ids) => {
    const eventIds = ids.map((id) => id.slice(account.length + 1));
    const running = await store.automationRuns.distinct('eventId', { account, eventId: { $in: eventIds }, state: 'running' });
    return new Set(running.map((eventId) => `${account}:${String(eventId)}`));
  });
  const idempotencyKeys = await run(store.idempotencyKeys, { created: { $lt: new Date(now.getTime() - IDEMPOTENCY_HOURS * 3_600_000) } }, async () => new Set());
  return { requests, snapshots, runs, triggerEvents, idempotencyKeys };
}

/** Removes the account's documents that match, page by page, but those `stillNeeded` names. */
async function pruneCollection<T extends { _id: string }>(
  collection: Collection<T>, account: string, filter: Filter<T>, stillNeeded: (ids: string[]) => Promise<Set<string>>,
  controls: PruneControls, tuning: PruneTuning,
): Promise<number> {
  const kept = new Set<string>();
  return inPages(controls, tuning, async () => {
    if (kept.size > MAX_KEPT) return null;
    const query = { ...filter, account, ...(kept.size > 0 ? { _id: { $nin: [...kept] } } : {}) } as Filter<T>;
    const ids = (await collection.find(query, { projection: { _id: 1 }, limit: tuning.pageSize }).toArray()).map((doc) => String(doc._id));
    if (ids.length === 0) return null;
    const needed = await stillNeeded(ids);
    for (const id of needed) kept.add(id);
    const gone = ids.filter((id) => !needed.has(id));
    if (gone.length === 0) return 0;
    return (await collection.deleteMany({ _id: { $in: gone }, account } as unknown as Filter<T>)).deletedCount;
  });
}

/** The snapshots of the account's campaigns whose launches and resends all ended before `since`. */
async function pruneSnapshots(store: Store, account: string, since: Date, controls: PruneControls, tuning: PruneTuning): Promise<number> {
  const withSnapshots = (await store.campaignSnapshots.distinct('campaignId', { account })).map(Number);
  if (withSnapshots.length === 0) return 0;
  const tasks = await store.tasks.find({ account, type: { $in: ['CAMPAIGN_LAUNCH', 'CAMPAIGN_RESEND'] } })
    .project<{ state: string; end: Date | null; parameters: { campaignId?: unknown } }>({ _id: 0, state: 1, end: 1, parameters: 1 }).toArray();
  const over = new Set(withSnapshots);
  for (const task of tasks) {
    const ended = FINAL_TASK.includes(task.state) && task.end !== null && task.end < since;
    if (!ended) over.delete(Number(task.parameters.campaignId));
  }
  if (over.size === 0) return 0;
  const campaigns = await store.campaigns.distinct('id', { account, id: { $in: [...over] }, state: { $in: ['SENT', 'CANCELLED'] } });
  if (campaigns.length === 0) return 0;
  return pruneCollection(store.campaignSnapshots, account, { campaignId: { $in: campaigns } }, async () => new Set(), controls, tuning);
}
