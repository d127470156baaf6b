// The deliveries log of a webhook endpoint, as GET /v2/{account}/webhooks/{id}/deliveries shows
// it: each failed POST and the outcome of its one retry (core/webhooks/retries.ts writes them).
import type { Store, WebhookDoc, WebhookLogDoc } from '../../adapters/store/store';

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
  };
}
