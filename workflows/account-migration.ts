import { proxyActivities } from '@temporalio/workflow';
import type { createMigrationActivities } from '../activities/account-migration';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';
import { runTask } from './task-run';

// One activity runs the whole migration; it records each finished step in the store, so a retry
// (a worker killed midway) goes on with the first unfinished one.
const { migrateAccount } = proxyActivities<ReturnType<typeof createMigrationActivities>>({
  startToCloseTimeout: '12 hours',
  heartbeatTimeout: '2 minutes',
  retry: { maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** Task ACCOUNT_MIGRATION: an account copied from a server speaking the original's API. */
export async function AccountMigration(input: TaskWorkflowInput): Promise<void> {
  await runTask(input, () => migrateAccount(input));
}
