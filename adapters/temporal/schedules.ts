// The Temporal Schedules of the sweepers (webhook delivery, send queues): each runs its workflow
// every minute on the worker's task queue. Creating one that exists keeps it, so every worker may
// ensure them at start.
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { workflowIds } from './contracts';

export const SWEEP_EVERY = '1 minute';

export interface Sweeper { scheduleId: string; workflowType: string; summary: string }

/** Creates the sweeper's schedule when it does not exist: one run every minute (a run still going when the next is due makes that one skip). */
export async function ensureSweeper(client: Client, taskQueue: string, sweeper: Sweeper): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: sweeper.scheduleId,
      spec: { intervals: [{ every: SWEEP_EVERY }] },
      action: {
        type: 'startWorkflow', workflowType: sweeper.workflowType, taskQueue, args: [],
        // A sweep nobody picks up (no worker on the queue) does not linger.
        workflowExecutionTimeout: '10 minutes',
        staticSummary: sweeper.summary,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}

/** Runs a sweep now (tests, operators after an incident). */
export async function triggerSweeper(client: Client, scheduleId: string): Promise<void> {
  await client.schedule.getHandle(scheduleId).trigger(ScheduleOverlapPolicy.ALLOW_ALL);
}

/** Deletes a sweeper's schedule (a test's own task queue, once its worker is gone). */
export async function removeSweeper(client: Client, scheduleId: string): Promise<void> {
  try {
    await client.schedule.getHandle(scheduleId).delete();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}

/** Every sweeper of a task queue. */
export function sweepersOf(taskQueue: string): Sweeper[] {
  return [
    {
      scheduleId: workflowIds.webhookSweeper(taskQueue), workflowType: 'WebhookSweep',
      summary: 'Webhook sweeper: restarts delivery workflows, runs overdue retries',
    },
    {
      scheduleId: workflowIds.sendQueueSweeper(taskQueue), workflowType: 'SendQueueSweep',
      summary: 'Send queue sweeper: rings the senders of queues waiting unattended',
    },
  ];
}
