import { writeExport, type ExportSelection } from '../core/contacts/export';
import { activeTask } from '../core/tasks/tasks';
import type { Store } from '../adapters/store/store';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';
import { asActivity } from './adapter';
import { TaskProgress } from './task-progress';

export interface ExportParameters extends ExportSelection { fileName: string }
export interface ExportResult { fileName: string; url: string; contacts: number }

/** Activities of the ContactExport workflow. */
export function createContactExportActivities({ store }: { store: Store }) {
  return {
    /**
     * Writes the selected contacts as a CSV file in the store (core/contacts/export.ts), reporting
     * progress per batch. A retry writes the file again from the start.
     */
    exportContacts(input: TaskWorkflowInput): Promise<{ message: string; result: ExportResult }> {
      return asActivity(async () => {
        const task = await activeTask(store, input.account, input.taskId);
        const { fileName, ...selection } = task.parameters as unknown as ExportParameters;
        const progress = new TaskProgress(store, input);
        const done = await writeExport(store, input.account, fileName, selection, (count, total) => progress.report(count, total, null, 'Exporting contacts'));
        return {
          message: `Exported ${done} contacts`,
          result: { fileName, url: `/v2/${input.account}/exports/${fileName}`, contacts: done },
        };
      });
    },
  };
}
