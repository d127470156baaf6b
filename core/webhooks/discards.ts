// Events discarded for a webhook endpoint (its POST and the one retry failed, or the endpoint was
// disabled before the retry), as GET /v2/{account}/webhooks/{id}/discarded lists them and a
// replay sends them again. A record names its event; the event stays in `events`, so the payload
// shown is read from it exactly as a delivery would POST it (./bson-json.ts). Kept as long as the
// deliveries log (30 days, the sweeper removes older ones), or until a replay delivers them.
import type { AnyBulkWriteOperation, ObjectId } from 'mongodb';
import type { Store, WebhookDiscardDoc, WebhookDoc } from '../../adapters/store/store';
import { eventJsonFromBson, type EventJson } from './bson-json';

export const discardId = (account: string, endpointId: number, trackId: string) => `${account}:${endpointId}:${trackId}`;

/** Records the events as discarded (again is harmless: a retry run twice keeps one record each). */
export async function recordDiscards(store: Store, endpoint: { account: string; id: number }, events: EventJson[]): Promise<void> {
  if (events.length === 0) return;
  const discarded = new Date();
  const writes: AnyBulkWriteOperation<WebhookDiscardDoc>[] = events.map((event) => {
    const { track_type: type, timestamp } = JSON.parse(event.json) as { track_type?: string; timestamp?: string };
    const doc: WebhookDiscardDoc = {
      _id: discardId(endpoint.account, endpoint.id, event.trackId), account: endpoint.account, endpointId: endpoint.id,
      trackId: event.trackId, eventId: event.id, type: type ?? '', time: timestamp ?? '', discarded,
    };
    return { replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } };
  });
  await store.webhookDiscards.bulkWrite(writes, { ordered: false });
}

/** The stored events, in _id order, as a delivery POSTs them; those no longer stored are left out. */
export async function readEvents(store: Store, account: string, ids: ObjectId[]): Promise<EventJson[]> {
  if (ids.length === 0) return [];
  const raw = await store.events.find({ account, _id: { $in: ids } }, { raw: true }).sort({ _id: 1 }).toArray();
  return (raw as unknown as Buffer[]).map(eventJsonFromBson);
}

export interface DiscardListOptions { offset: number; limit: number; sortdir: 'asc' | 'desc'; q?: object }

/** A page of the endpoint's discarded events, newest discard first by default, with their payloads. */
export async function findDiscarded(store: Store, endpoint: WebhookDoc, options: DiscardListOptions) {
  const filter = { account: endpoint.account, endpointId: endpoint.id, ...(options.q ? { trackId: options.q } : {}) };
  const order = options.sortdir === 'asc' ? 1 : -1;
  const [records, total] = await Promise.all([
    store.webhookDiscards.find(filter).sort({ discarded: order, _id: order }).skip(options.offset).limit(options.limit).toArray(),
    store.webhookDiscards.countDocuments(filter),
  ]);
  const payloads = new Map((await readEvents(store, endpoint.account, records.map((r) => r.eventId))).map((e) => [e.trackId, e.json]));
  const items = records.map((record) => ({
    track_id: record.trackId,
    type: record.type,
    time: record.time,
    discarded: record.discarded.toISOString(),
    payload: payloads.has(record.trackId) ? JSON.parse(payloads.get(record.trackId)!) as unknown : null,
  }));
  return { items, total };
}

/** The records of these track_ids of the endpoint (those that are not discarded events of it are missing). */
export function discardsOf(store: Store, endpoint: WebhookDoc, trackIds: string[]): Promise<WebhookDiscardDoc[]> {
  return store.webhookDiscards.find({ _id: { $in: trackIds.map((t) => discardId(endpoint.account, endpoint.id, t)) }, account: endpoint.account }).toArray();
}

/** Forgets discards that were delivered by a replay. */
export async function forgetDiscards(store: Store, endpoint: WebhookDoc, trackIds: string[]): Promise<void> {
  await store.webhookDiscards.deleteMany({ _id: { $in: trackIds.map((t) => discardId(endpoint.account, endpoint.id, t)) }, account: endpoint.account });
}
