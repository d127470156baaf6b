// Starting the workflows of webhook delivery: each enabled endpoint's long-lived WebhookDelivery
// (idempotent: a delivery workflow already running is left as it is, USE_EXISTING), and a sweep
// on demand (its schedule: adapters/temporal/schedules.ts).
import { WorkflowIdConflictPolicy, type Client } from '@temporalio/client';
import { searchAttributeKeys, workflowIds, type WebhookDeliveryInput } from '../../adapters/temporal/contracts';
import { triggerSweeper } from '../../adapters/temporal/schedules';

/** A start normally takes milliseconds; a slower Temporal leaves the endpoint to the next sweep. */
const START_DEADLINE_MS = 5000;

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

/** Runs a webhook sweep now (tests, operators after an incident). */
export async function triggerWebhookSweep(client: Client, taskQueue: string): Promise<void> {
  await triggerSweeper(client, workflowIds.webhookSweeper(taskQueue));
}
