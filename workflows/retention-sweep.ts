import { proxyActivities } from '@temporalio/workflow';
import type { createRetentionActivities } from '../activities/retention';

type Activities = ReturnType<typeof createRetentionActivities>;

const { pruneHistory } = proxyActivities<Activities>({
  // The activity stops itself after 45 minutes (activities/retention.ts); the schedule starts the next run within the hour.
  startToCloseTimeout: '50 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** One pruning run, started every hour by the retention schedule (core/retention/run.ts says what it does). */
export async function RetentionSweep(): Promise<ReturnType<Activities['pruneHistory']>> {
  return pruneHistory();
}
