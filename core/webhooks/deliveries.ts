// The deliveries log of a webhook endpoint, as GET /v2/{account}/webhooks/{id}/deliveries shows
// it: one entry per POST (a delivery pass's, a retry's, a replay's) with its answer and event
// count, and one per discard. Delivery passes write one entry per answered POST, and POSTs
// carry batches (up to 500 events), so the log costs one small insert per request.
import { ObjectId } from 'mongodb';
import type { Store, WebhookDoc, WebhookLogDoc } from '../../adapters/store/store';

/** The track_ids a log entry keeps (a batch holds at most this many events anyway, by default). */
const MAX_LOGGED_TRACK_IDS = 1000;

export type LogEntry = Omit<WebhookLogDoc, '_id' | 'account' | 'endpointId' | 'at' | 'eventCount' | 'trackIds'>;

/** The entry of a request answered (or not) now; its _id made now, so the log's order is the answers' order. */
export function logEntry(endpoint: { account: string; id: number }, trackIds: string[], entry: LogEntry): WebhookLogDoc {
  return {
    _id: new ObjectId(), account: endpoint.account, endpointId: endpoint.id, at: new Date(), eventCount: trackIds.length,
    trackIds: trackIds.slice(0, MAX_LOGGED_TRACK_IDS), ...entry,
  };
}

export async function logRequest(store: Store, endpoint: { account: string; id: number }, trackIds: string[], entry: LogEntry): Promise<void> {
  await store.webhookLog.insertOne(logEntry(endpoint, trackIds, entry));
}

export interface DeliveryListOptions {
  offset: number; limit: number; sortdir: 'asc' | 'desc'; filters: Record<string, unknown>; q?: object;
}

export async function findDeliveries(store: Store, endpoint: WebhookDoc, options: DeliveryListOptions) {
  const filter = {
    account: endpoint.account, endpointId: endpoint.id,
    ...(options.filters.outcome ? { outcome: options.filters.outcome as WebhookLogDoc['outcome'] } : {}),
    ...(options.q ? { trackIds: options.q } : {}),
  };
  const [items, total] = await Promise.all([
    store.webhookLog.find(filter).sort({ _id: options.sortdir === 'asc' ? 1 : -1 }).skip(options.offset).limit(options.limit).toArray(),
    store.webhookLog.countDocuments(filter),
  ]);
  return { items, total };
}

/** An entry as the API shows it. */
export function deliveryView(entry: WebhookLogDoc) {
  return {
    id: entry._id.toHexString(),
    time: entry.at.toISOString(),
    outcome: entry.outcome,
    attempt: entry.attempt,
    status: entry.status,
    error: entry.error,
    events: entry.eventCount,
    track_ids: entry.trackIds,
    ...(entry.retryAt ? { retry_at: entry.retryAt.toISOString() } : {}),
    ...(entry.replay ? { replay: true } : {}),
  };
}
