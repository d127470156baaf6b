import type { Client } from '@temporalio/client';
import { readAccountSettings } from '../accounts/settings';
import { newId } from '../shared/ids';
import type { Store } from '../../adapters/store/store';
import { insertsPerTurn } from '../../adapters/batching/turn-batch';
import { startScheduledSend } from '../../adapters/temporal/client';
import { ringUnlessDraining } from './doorbell';
import { lookAhead, paced, PACING } from './pacing';
import { enqueue, removeUntaken } from './send-queue';
import { countMonthlyMessages } from './monthly-usage';
import { batchId, launchInstant, messageCount, toStoredFields, type AcceptedRequest } from './request';

/** Requests accepted together are recorded with one `insertMany` (adapters/batching/turn-batch.ts). */
const requestRecords = insertsPerTurn((store) => store.sendRequests);

export interface AcceptDeps { store: Store; temporal: Client; taskQueue: string }

/** The accepted request's id and the batch id its events carry. */
export interface AcceptedIds { requestId: string; batchId: string }

/**
 * Durable acceptance, shared by HTTP and SMTP (and the opt-in mails): count the request's
 * messages against the account's monthly limit and record the request (the claim check), then
 * hand it over: to the account's send queue, ringing its AccountSender unless a sender is
 * draining that queue (./doorbell.ts), or to a ScheduledSend workflow of its own when it has a
 * launch_date in the future. Only when all succeeded is the request accepted; if a later step
 * fails the record is removed and the count given back, so a caller told to retry leaves nothing
 * half-recorded or counted, unless a sender already took the request, which is then accepted
 * (it is being sent). Over the limit: unavailable, naming the MONTHLY limit. Other errors are
 * the store's or Temporal's own: callers turn them into the error model (core/faults).
 * `monthlyLimit` saves a read when the caller has the settings.
 */
export async function acceptSendRequest(deps: AcceptDeps, request: AcceptedRequest, known?: { monthlyLimit: number | null }): Promise<AcceptedIds> {
  const requestId = newId();
  const { account } = request;
  const ids = { requestId, batchId: batchId(account, requestId, request.source === 'http' ? request.body.batch_code : undefined) };
  const launchAt = request.source === 'http' && request.body.launch_date ? new Date(launchInstant(request.body.launch_date)) : undefined;
  const monthlyLimit = known ? known.monthlyLimit : (await readAccountSettings(deps.store, account))?.monthlyLimit ?? null;
  const scheduled = launchAt !== undefined && launchAt.getTime() > Date.now();
  // Pacing's look at the queue, made beside the writes below rather than after them (./pacing.ts).
  const ahead = scheduled ? undefined : lookAhead(deps.store, account);
  // Counting and recording are independent store writes: made together, the request waits for
  // one round trip instead of two. Either one failing undoes the other.
  const record = requestRecords(deps.store).add({
    _id: requestId, ...toStoredFields(request), batchId: ids.batchId, ...(launchAt ? { launchAt } : {}), acceptedAt: new Date(),
  });
  const [counting, recording] = await Promise.allSettled([countMonthlyMessages(deps.store, account, messageCount(request), monthlyLimit), record]);
  const forget = () => deps.store.sendRequests.deleteOne({ _id: requestId, account }).catch(() => undefined);
  if (counting.status === 'rejected') {
    if (recording.status === 'fulfilled') await forget();
    throw counting.reason;
  }
  const counted = counting.value;
  try {
    if (recording.status === 'rejected') throw recording.reason;
    try {
      // Sent now: queued for the account's sender. Sent later: a durable timer of its own.
      if (scheduled) {
        await startScheduledSend(deps.temporal, deps.taskQueue, { account, ...ids, launchAt: launchAt.toISOString() });
      } else {
        await queue(deps, account, ids);
      }
    } catch (error) {
      await forget();
      throw error;
    }
  } catch (error) {
    await counted.giveBack().catch(() => undefined);
    throw error;
  }
  // Accepted: the answer waits while the account's sender is far behind (./pacing.ts).
  if (ahead) await paced(deps.store, account, PACING, ahead).catch(() => undefined);
  return ids;
}

/**
 * Queues a stored request for its account's sender and rings it when needed. The entry is stored
 * only after the request, so a sender never finds an entry without its request. When the ring
 * fails the entry is taken back and the error thrown, unless a sender already took the entry: the
 * request is then accepted after all rather than refused while it is being sent. (Should taking
 * it back fail too, the store being down, a sender may later find the entry without its request
 * and record that request as missing.)
 */
async function queue(deps: AcceptDeps, account: string, ids: AcceptedIds): Promise<void> {
  const entry = await enqueue(deps.store, account, ids);
  try {
    await ringUnlessDraining(deps, account);
  } catch (error) {
    if (await removeUntaken(deps.store, account, entry)) throw error;
  }
}
