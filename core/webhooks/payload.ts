// The body of webhook requests: a JSON array of events, each with exactly the spec's fields (the
// stored document without its `_id`, which is only the cursor order; core/webhooks/bson-json.ts).
// Events read together are split into requests of at most `maxEvents` events and about
// `maxBytes` bytes.
import type { ObjectId } from 'mongodb';
import type { EventJson } from './bson-json';

export interface RequestBatch {
  body: string;
  ids: ObjectId[];
  trackIds: string[];
  /** The last event's _id: the cursor once this request is answered. */
  last: ObjectId;
}

/** The events, in order, as request bodies; an event bigger than maxBytes goes alone. */
export function splitIntoRequests(events: EventJson[], maxEvents: number, maxBytes: number): RequestBatch[] {
  const batches: RequestBatch[] = [];
  let group: EventJson[] = [];
  let bytes = 2;
  const flush = () => {
    if (group.length === 0) return;
    batches.push({
      body: `[${group.map((e) => e.json).join(',')}]`, ids: group.map((e) => e.id), trackIds: group.map((e) => e.trackId), last: group[group.length - 1].id,
    });
    group = [];
    bytes = 2;
  };
  for (const event of events) {
    if (group.length > 0 && (group.length >= maxEvents || bytes + event.json.length + 1 > maxBytes)) flush();
    group.push(event);
    bytes += event.json.length + 1;
  }
  flush();
  return batches;
}
