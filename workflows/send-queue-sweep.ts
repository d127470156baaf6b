import { proxyActivities } from '@temporalio/workflow';
import type { createSendActivities } from '../activities/sending';

type Activities = ReturnType<typeof createSendActivities>;

const { sweepSendQueues } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** One sweep, started every minute by the sweeper's Temporal Schedule (core/transactional/queue-sweep.ts says what it does). */
export async function SendQueueSweep(): Promise<ReturnType<Activities['sweepSendQueues']>> {
  return sweepSendQueues();
}
