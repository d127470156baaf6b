// When an account's drain gave up (the relay's trouble outlasted Temporal's retries of it, about
// a quarter of an hour): every request that waited through those retries, accepted before the
// failed drain began, has its unsent messages recorded as failed (a soft bounce each, with the
// reason), so accepted work always ends in an event. Requests accepted later stay queued for the
// next drain, with retries of their own.
import type { SendOutcome } from '../../adapters/temporal/contracts';
import type { SendLog } from '../sending/message-loop';
import { acceptedBefore, complete } from './send-queue';
import { createRequestSender, type RequestSenderDeps } from './send-requests';

/** Requests given up per store round trip. */
const CHUNK = 100;

export function createQueueGiveUp(deps: RequestSenderDeps) {
  const { store } = deps;
  const sender = createRequestSender(deps);
  return async function giveUpQueued(account: string, before: Date, reason: string, log?: SendLog): Promise<SendOutcome> {
    const total: SendOutcome = { sent: 0, failed: 0, deferred: [] };
    for (;;) {
      const entries = await acceptedBefore(store, account, before, CHUNK);
      if (entries.length === 0) return total;
      const outcome = await sender.giveUp({ account, requests: entries.map(({ requestId, batchId }) => ({ requestId, batchId })) }, reason, log);
      total.sent += outcome.sent;
      total.failed += outcome.failed;
      await complete(store, account, entries.map((entry) => entry._id));
    }
  };
}
