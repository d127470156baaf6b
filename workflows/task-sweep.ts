import { proxyActivities } from '@temporalio/workflow';
import type { createTaskActivities } from '../activities/tasks';

type Activities = ReturnType<typeof createTaskActivities>;

const { sweepUnstartedTasks } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** One sweep, started every minute by the task sweeper's Temporal Schedule (core/tasks/unstarted.ts says what it does). */
export async function TaskSweep(): Promise<ReturnType<Activities['sweepUnstartedTasks']>> {
  return sweepUnstartedTasks();
}
