// Grouped, durable event writes for the tracking endpoints. A hit is answered only once its
// events are in the store (an acknowledged hit is never lost), but a store round trip per hit
// would cap tracking at the store's per-command rate. So events queue while a write is in flight
// and the next write takes all of them (WriteQueue): hits that arrive together share one insertMany.
//
// Each event's _id (the order the activity API and webhook delivery read by) is given when its
// write starts, not when the hit came, so an _id is at most one write's duration older than
// the moment its event became readable (webhook delivery reads behind a settle window: see
// core/webhooks). A first_* event's track_id is derived from its mail_id, so the unique index on
// track_id keeps exactly one of concurrent first hits, across processes.
import { ObjectId } from 'mongodb';
import { recordEvents } from './events';
import type { EventDoc, Store } from '../../adapters/store/store';
import { WriteQueue } from '../../adapters/batching/write-queue';

/** Events per insertMany at most; a bigger queue is written in several. */
const MAX_WRITE = 2000;

export class EventWriter {
  private readonly queue: WriteQueue<EventDoc>;

  constructor(store: Store) {
    this.queue = new WriteQueue(async (events) => {
      for (let at = 0; at < events.length; at += MAX_WRITE) {
        const part = events.slice(at, at + MAX_WRITE);
        for (const event of part) event._id = new ObjectId();
        await recordEvents(store, part);
      }
    });
  }

  /** Resolves once the events are stored (an event whose track_id was stored already counts as stored). */
  write(events: EventDoc[]): Promise<void> {
    return events.length === 0 ? Promise.resolve() : this.queue.add(events);
  }
}
