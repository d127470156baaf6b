// What both send workflows do with a set of requests: one attempt through the sendRequests
// activity (whose own retries cover relay trouble), and what to record when it gives up.
import { log, proxyActivities } from '@temporalio/workflow';
import type { createSendActivities } from '../activities/sending';
import type { QueuedSend } from '../adapters/temporal/contracts';
import { RELAY_TROUBLE_RETRY } from '../core/sending/deferral';
import { reasonGivenUp } from './send-policy';

type Activities = ReturnType<typeof createSendActivities>;

// Transient relay trouble is retried with backoff (RELAY_TROUBLE_RETRY: about a quarter of an
// hour); after that the messages not yet sent are recorded as failed, so accepted work always
// ends in an event. The
// activity heartbeats every 2 s while it works: 10 s without one means its worker is gone, and
// the retry (on a live worker) resumes sending within about 10 s. It also learns of a
// cancellation through its heartbeats, and stops before its next message.
const { sendRequests } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '10 seconds',
  retry: RELAY_TROUBLE_RETRY,
});

export const { recordUnsentAsFailed, recordCancelled } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumInterval: '1 minute' },
});

/**
 * One attempt at the requests. Returns the ids of requests with recipients the relay deferred.
 * When the activity's retries ran out, every unsent message is recorded as failed.
 */
export async function sendAttempt(account: string, requests: QueuedSend[]): Promise<string[]> {
  const summary = requests.length === 1 ? `batch ${requests[0].batchId}` : `${requests.length} requests: ${requests.map((r) => r.batchId).join(' ')}`;
  try {
    const outcome = await sendRequests.executeWithOptions({ summary: summary.slice(0, 400) }, [{ account, requests }]);
    return outcome.deferred;
  } catch (error) {
    const reason = reasonGivenUp(error);
    log.warn('sending gave up after retries; recording the unsent messages as failed', { account, requests: requests.length, reason });
    await recordUnsentAsFailed({ account, requests, reason });
    return [];
  }
}
