import {
  proxyActivities, sleep, ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, log,
} from '@temporalio/workflow';
import type { createTransactionalActivities } from '../activities/transactional';
import type { TransactionalBatchInput } from '../core/workflow-contracts';


type Activities = ReturnType<typeof createTransactionalActivities>;

// Transient relay trouble is retried with backoff for about half an hour; after that the
// messages not yet sent are recorded as failed, so accepted work always ends in an event.
// The activity heartbeats every 2 s while it works: 10 s without one means its worker is gone,
// and the retry (on a live worker) resumes sending within about 10 s. It also learns of a
// cancellation through its heartbeats, and stops before its next message.
const { sendAcceptedRequest } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

const { recordUnsentAsFailed, recordCancelled } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumInterval: '1 minute' },
});

/**
 * Sends every message of one accepted transactional request, at its launch_date when it has
 * one (a durable timer: any horizon, through restarts). Cancelled (its batch cancelled through
 * the API) before or while sending, it records what was not sent as dropped.
 */
export async function TransactionalBatch(input: TransactionalBatchInput): Promise<{ sent: number; failed: number }> {
  try {
    const wait = input.launchAt ? Date.parse(input.launchAt) - Date.now() : 0;
    if (wait > 0) await sleep(wait);
    return await send(input);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    return await CancellationScope.nonCancellable(() => recordCancelled(input));
  }
}

async function send(input: TransactionalBatchInput): Promise<{ sent: number; failed: number }> {
  try {
    return await sendAcceptedRequest(input);
  } catch (error) {
    if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
    if (error.cause instanceof ApplicationFailure && error.cause.type === 'RequestNotFound') return { sent: 0, failed: 0 };
    log.warn('sending gave up after retries; recording the unsent messages as failed', { requestId: input.requestId });
    return await recordUnsentAsFailed({ ...input, reason: error.cause?.message ?? error.message });
  }
}
