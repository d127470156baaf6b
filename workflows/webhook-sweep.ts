import { proxyActivities } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';

type Activities = ReturnType<typeof createWebhookActivities>;

const { sweepWebhooks } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** One sweep, started every minute by the sweeper's Temporal Schedule (core/webhooks/sweep.ts says what it does). */
export async function WebhookSweep(): Promise<ReturnType<Activities['sweepWebhooks']>> {
  return sweepWebhooks();
}
