import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import type { ScheduledSendInput } from '../adapters/temporal/contracts';
import { KEPT_DEFERRING } from '../core/sending/deferral';
import { sendWhileDeferred } from './send-policy';
import { recordCancelled, recordUnsentAsFailed, sendAttempt } from './send-attempts';

/**
 * One request with a launch_date in the future: a durable timer until then (any horizon, through
 * restarts), then sent like any other. Cancelled (its batch cancelled through the API) before
 * or while sending, it records what was not sent as dropped. Its own workflow, searchable by
 * account and batch id, so the wait is visible in the Temporal UI.
 */
export async function ScheduledSend(input: ScheduledSendInput): Promise<void> {
  const { account, requestId, batchId } = input;
  const requests = [{ requestId, batchId }];
  try {
    const wait = Date.parse(input.launchAt) - Date.now();
    if (wait > 0) await sleep(wait);
    const { gaveUp } = await sendWhileDeferred(() => sendAttempt(account, requests), (deferred) => deferred.length > 0);
    if (gaveUp) await recordUnsentAsFailed({ account, requests, reason: KEPT_DEFERRING });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(() => recordCancelled({ account, requests }));
  }
}
