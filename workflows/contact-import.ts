import { proxyActivities } from '@temporalio/workflow';
import type { createContactImportActivities } from '../activities/contact-import';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';
import { runTask } from './task-run';

// One activity streams the whole file; its heartbeat carries the checkpoint a retry resumes from.
const { importContacts } = proxyActivities<ReturnType<typeof createContactImportActivities>>({
  startToCloseTimeout: '4 hours',
  heartbeatTimeout: '1 minute',
  retry: { maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** Task CONTACT_IMPORT: the rows of a stored CSV file as contacts (created, updated or left alone). */
export async function ContactImport(input: TaskWorkflowInput): Promise<void> {
  await runTask(input, () => importContacts(input));
}
