// The Temporal Schedules of the sweepers (webhook delivery, send queues and tasks every minute, retention
// every hour): each runs its workflow on the worker's task queue. Creating one that exists keeps
// it, so every worker may ensure them at start.
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { workflowIds } from './contracts';

export const SWEEP_EVERY = '1 minute';
/** Retention is counted in days: an hourly pruning removes history within the hour it expires. */
export const RETENTION_EVERY: Duration = '1 hour';

export interface Sweeper {
  scheduleId: string; workflowType: string; summary: string;
  /** How often it runs (every minute by default) and how long a run may take (10 minutes by default). */
  every?: Duration; timeout?: Duration;
}

/** Creates the sweeper's schedule when it does not exist: one run every minute, or its `every` (a run still going when the next is due makes that one skip). */
export async function ensureSweeper(client: Client, taskQueue: string, sweeper: Sweeper): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: sweeper.scheduleId,
      spec: { intervals: [{ every: sweeper.every ?? SWEEP_EVERY }] },
      action: {
        type: 'startWorkflow', workflowType: sweeper.workflowType, taskQueue, args: [],
        // A sweep nobody picks up (no worker on the queue) does not linger.
        workflowExecutionTimeout: sweeper.timeout ?? '10 minutes',
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
    {
      scheduleId: workflowIds.taskSweeper(taskQueue), workflowType: 'TaskSweep',
      summary: 'Task sweeper: starts the workflows of tasks recorded but never started (a process killed in between)',
    },
    {
      scheduleId: workflowIds.retentionSweeper(taskQueue), workflowType: 'RetentionSweep',
      summary: 'Retention: removes request bodies and message events older than each account\'s retention, keeping their counts',
      every: RETENTION_EVERY, timeout: RETENTION_EVERY,
    },
  ];
}

/** The bounce mailbox reader's schedule (one per task queue), for the relays file's feedback.mailbox. */
export function bounceMailboxSweeper(taskQueue: string): Sweeper {
  return {
    scheduleId: workflowIds.bounceMailboxReader(taskQueue), workflowType: 'BounceMailboxRead',
    summary: 'Bounce mailbox reader: records the bounces and complaints of the IMAP mailbox',
  };
}

export const MAILBOX_OFF_NOTE = 'Paused: the relays file names no bounce mailbox (feedback.mailbox); a worker started with one resumes it';

/**
 * Makes the bounce mailbox reader's schedule match this worker's settings: every `everySeconds`
 * when a mailbox is configured (created, or updated and resumed if it was changed or paused), and
 * paused with a note when the setting was removed (nothing is left reading a mailbox its settings
 * no longer name; the note tells the operator why in the Temporal UI). Nothing is created when no
 * mailbox was ever configured. The schedule carries no settings: the activity reads them from
 * its worker's configuration, so credentials never reach Temporal's history.
 */
export async function syncBounceMailboxSchedule(
  client: Client, taskQueue: string, everySeconds: number | undefined,
): Promise<'created' | 'updated' | 'kept' | 'paused' | 'absent'> {
  const sweeper = bounceMailboxSweeper(taskQueue);
  const handle = client.schedule.getHandle(sweeper.scheduleId);
  if (everySeconds === undefined) {
    try {
      const described = await handle.describe();
      if (described.state.paused) return 'paused';
      await handle.pause(MAILBOX_OFF_NOTE);
      return 'paused';
    } catch (error) {
      if (error instanceof ScheduleNotFoundError) return 'absent';
      throw error;
    }
  }
  const every = everySeconds * 1000;
  try {
    await client.schedule.create({
      scheduleId: sweeper.scheduleId,
      spec: { intervals: [{ every }] },
      action: {
        type: 'startWorkflow', workflowType: sweeper.workflowType, taskQueue, args: [],
        workflowExecutionTimeout: '30 minutes', staticSummary: sweeper.summary,
      },
      // A read still going when the next is due makes that one skip.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const described = await handle.describe();
  const current = described.spec.intervals?.[0]?.every;
  if (current === everySeconds * 1000 && !described.state.paused && described.spec.intervals?.length === 1) return 'kept';
  await handle.update((previous) => ({
    ...previous,
    spec: { intervals: [{ every }] },
    state: { paused: false, note: `Reads the bounce mailbox every ${everySeconds} s` },
  }));
  return 'updated';
}
