import { proxyActivities } from '@temporalio/workflow';
import type { createContactExportActivities } from '../activities/contact-export';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';
import { runTask } from './task-run';

const { exportContacts } = proxyActivities<ReturnType<typeof createContactExportActivities>>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '1 minute',
  retry: { maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** Task CONTACT_EXPORT_TASK: the selected contacts as a CSV file to download. */
export async function ContactExport(input: TaskWorkflowInput): Promise<void> {
  await runTask(input, () => exportContacts(input));
}
