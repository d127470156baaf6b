// The one retry of a failed webhook POST. When a POST fails (non-2xx, no answer within 10 s, no
// connection), its events are recorded as a retry batch, with a `failed` entry in the endpoint's
// deliveries log, before the cursor moves past them: a crash cannot lose them. One minute later
// the batch is POSTed once more (by the delivery workflow's durable timer, or by the sweeper when
// the workflow lost track of it); the outcome is logged as `delivered` or `discarded`, and the
// batch removed. Whoever runs a retry first takes a lease on it, so the workflow and the sweeper
// never both POST it; a runner that dies loses its lease after RETRY_LEASE_MS.
import type { ObjectId } from 'mongodb';
import { metrics } from '../../adapters/metrics/registry';
import type { Store, WebhookDoc } from '../../adapters/store/store';
import { WEBHOOK_RETRY_DELAY_MS } from '../../adapters/temporal/contracts';
import type { EventJson } from './bson-json';
import { logRequest as log, type LogEntry } from './deliveries';
import { readEvents, recordDiscards } from './discards';
import { splitIntoRequests } from './payload';
import type { Poster, PostResult } from './post';
import { acquireRequests } from './rate-limit';

const RETRY_LEASE_MS = 2 * 60_000;
export interface RetryDeps { store: Store; poster: Poster }

/**
 * Records a failed POST of these events: the log entry, then the retry batch (the same batch
 * recorded twice, by an activity run again, stays one). Returns the batch's id.
 */
export async function recordFailure(
  store: Store, endpoint: WebhookDoc, batch: { ids: ObjectId[]; trackIds: string[] }, result: PostResult, delayMs = WEBHOOK_RETRY_DELAY_MS,
): Promise<string> {
  const retryId = `${endpoint.account}:${endpoint.id}:${batch.ids[0].toHexString()}-${batch.ids[batch.ids.length - 1].toHexString()}`;
  const dueAt = new Date(Date.now() + delayMs);
  const inserted = await store.webhookRetries.updateOne(
    { _id: retryId },
    { $setOnInsert: { account: endpoint.account, endpointId: endpoint.id, eventIds: batch.ids, dueAt, leaseUntil: new Date(0) } },
    { upsert: true },
  );
  if (inserted.upsertedCount > 0) {
    await log(store, endpoint, batch.trackIds, { outcome: 'failed', attempt: 1, status: result.status, error: result.error, retryAt: dueAt });
  }
  return retryId;
}

/**
 * Runs a retry batch: POSTs its events once more, logs `delivered` or `discarded`, removes the
 * batch. `held`: someone else holds its lease; `missing`: it was done (or deleted) already. An
 * endpoint that was disabled meanwhile gets no POST: its events are discarded; one that was
 * deleted took its batches with it.
 */
export async function runRetry(deps: RetryDeps, account: string, endpointId: number, retryId: string): Promise<'done' | 'held' | 'missing'> {
  const { store, poster } = deps;
  const now = new Date();
  const claimed = await store.webhookRetries.findOneAndUpdate(
    { _id: retryId, account, endpointId, leaseUntil: { $lte: now } },
    { $set: { leaseUntil: new Date(now.getTime() + RETRY_LEASE_MS) } },
    { returnDocument: 'after' },
  );
  if (!claimed) return (await store.webhookRetries.countDocuments({ _id: retryId })) > 0 ? 'held' : 'missing';
  const endpoint = await store.webhooks.findOne({ _id: `${account}:${endpointId}`, account });
  if (!endpoint) {
    await store.webhookRetries.deleteOne({ _id: retryId });
    return 'done';
  }
  const events = await readEvents(store, account, claimed.eventIds);
  const trackIds = events.map((e) => e.trackId);
  if (!endpoint.enabled) {
    await discard(store, endpoint, events, { attempt: 1, status: null, error: 'the endpoint was disabled before the retry' });
  } else if (events.length > 0) {
    const [request] = splitIntoRequests(events, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    await acquireRequests(store, endpoint.url, 1);
    const result = await poster.post(endpoint, request.body, { 'Herald-Attempt': '2' });
    if (result.outcome === 'delivered') {
      metrics.webhookEventsDelivered.inc(events.length);
      await log(store, endpoint, trackIds, { outcome: 'delivered', attempt: 2, status: result.status, error: null });
    } else {
      await discard(store, endpoint, events, { attempt: 2, status: result.status, error: result.error });
    }
  }
  await store.webhookRetries.deleteOne({ _id: retryId });
  return 'done';
}

/** The events dropped: kept as discarded (for a replay) before the log says so. */
async function discard(store: Store, endpoint: WebhookDoc, events: EventJson[], entry: Omit<LogEntry, 'outcome'>): Promise<void> {
  metrics.webhookEventsDiscarded.inc(events.length);
  await recordDiscards(store, endpoint, events);
  await log(store, endpoint, events.map((e) => e.trackId), { outcome: 'discarded', ...entry });
}

/** Retry batches whose time passed by more than `graceMs` and that nobody holds: what the sweeper picks up. */
export function overdueRetries(store: Store, graceMs: number, limit: number) {
  const now = Date.now();
  return store.webhookRetries
    .find({ dueAt: { $lte: new Date(now - graceMs) }, leaseUntil: { $lte: new Date(now) } })
    .project<{ _id: string; account: string; endpointId: number }>({ _id: 1, account: 1, endpointId: 1 })
    .limit(limit)
    .toArray();
}

