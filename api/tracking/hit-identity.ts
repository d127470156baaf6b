// One identity per tracking request. The fast path (./fast-path.ts) hands a hit it could not
// record to the Koa route (api/tracking/router.ts), which records it again; when the first write
// landed but its answer was lost (a store fault), a new identity would count the hit twice. The
// route records a handed-over hit under the identity the fast path gave it, and the recorder makes
// the hit's event and held hit from that identity, so the second write adds nothing
// (core/tracking/recorder.ts).
import type { IncomingMessage } from 'node:http';
import { ObjectId } from 'mongodb';

const handedOver = new WeakMap<IncomingMessage, ObjectId>();

/** Before the fast path hands `req` to Koa: the identity its recording attempt used. */
export function handOver(req: IncomingMessage, id: ObjectId): void {
  handedOver.set(req, id);
}

/** The identity of the hit `req` makes: the fast path's when it handed the hit over, else a new one. */
export function hitIdOf(req: IncomingMessage): ObjectId {
  return handedOver.get(req) ?? new ObjectId();
}
