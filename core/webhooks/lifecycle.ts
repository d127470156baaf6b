// Starting the workflows of webhook delivery: each enabled endpoint's long-lived WebhookDelivery,
// and the Temporal Schedule that runs the sweeper every minute. Both starts are idempotent: a
// delivery workflow already running is left as it is (USE_EXISTING), and a schedule that exists
// is kept.
import {
  ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, WorkflowIdConflictPolicy, type Client,
} from '@temporalio/client';
import { searchAttributeKeys, workflowIds, type WebhookDeliveryInput } from '../../adapters/temporal/contracts';

/** A start normally takes milliseconds; a slower Temporal leaves the endpoint to the next sweep. */
const START_DEADLINE_MS = 5000;
export const SWEEP_EVERY = '1 minute';

/** Starts the endpoint's delivery workflow unless it runs already. */
export async function startWebhookDelivery(client: Client, taskQueue: string, account: string, endpointId: number): Promise<void> {
  await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.start('WebhookDelivery', {
    taskQueue,
    workflowId: workflowIds.webhookDelivery(account, endpointId),
    args: [{ account, endpointId } satisfies WebhookDeliveryInput],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    typedSearchAttributes: [{ key: searchAttributeKeys.account, value: account }],
    staticSummary: `Webhook ${endpointId} of ${account}`,
  }));
}

/**
 * Creates the sweeper's schedule for this task queue when it does not exist: every minute, one
 * WebhookSweep workflow (a sweep still running when the next is due makes that one skip).
 */
export async function ensureWebhookSweeper(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: workflowIds.webhookSweeper(taskQueue),
      spec: { intervals: [{ every: SWEEP_EVERY }] },
      action: {
        type: 'startWorkflow', workflowType: 'WebhookSweep', taskQueue, args: [],
        // A sweep nobody picks up (no worker on the queue) does not linger.
        workflowExecutionTimeout: '10 minutes',
        staticSummary: 'Webhook sweeper: restarts delivery workflows, runs overdue retries',
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}

/** Runs a sweep now (tests, operators after an incident). */
export async function triggerWebhookSweep(client: Client, taskQueue: string): Promise<void> {
  await client.schedule.getHandle(workflowIds.webhookSweeper(taskQueue)).trigger(ScheduleOverlapPolicy.ALLOW_ALL);
}

/** Deletes the sweeper's schedule (a test's own task queue, once its worker is gone). */
export async function removeWebhookSweeper(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.getHandle(workflowIds.webhookSweeper(taskQueue)).delete();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}
