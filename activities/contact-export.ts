import { exportHeader, exportRows, namesOf, selectionFilter, type ExportSelection } from '../core/contacts/export';
import { deleteFile, saveFile } from '../adapters/store/files';
import type { Store } from '../adapters/store/store';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';
import { TaskProgress } from './task-progress';
import { activeTask } from './tasks';

const BATCH = 1000;

export interface ExportParameters extends ExportSelection { fileName: string }
export interface ExportResult { fileName: string; url: string; contacts: number }

/** Activities of the ContactExport workflow. */
export function createContactExportActivities({ store }: { store: Store }) {
  return {
    /**
     * Writes the selected contacts as a CSV file in the store, in id order, reporting progress
     * per batch. A retry writes the file again from the start.
     */
    async exportContacts(input: TaskWorkflowInput): Promise<{ message: string; result: ExportResult }> {
      const task = await activeTask(store, input);
      const { fileName, ...selection } = task.parameters as unknown as ExportParameters;
      const filter = selectionFilter(input.account, selection);
      const [total, names] = await Promise.all([store.contacts.countDocuments(filter), namesOf(store, input.account)]);
      const progress = new TaskProgress(store, input);
      await progress.report(0, total, null, 'Exporting contacts');
      await deleteFile(store, input.account, fileName); // what an earlier attempt left
      let done = 0;
      async function* csv() {
        yield exportHeader(names.fields);
        const cursor = store.contacts.find(filter).sort({ id: 1 }).batchSize(BATCH);
        let batch = [];
        for await (const contact of cursor) {
          batch.push(contact);
          if (batch.length < BATCH) continue;
          yield exportRows(batch, names.fields, names.listNames, names.interestNames);
          done += batch.length;
          batch = [];
          await progress.report(done, total, null, 'Exporting contacts');
        }
        if (batch.length > 0) yield exportRows(batch, names.fields, names.listNames, names.interestNames);
        done += batch.length;
      }
      await saveFile(store, input.account, fileName, 'export', 'text/csv; charset=utf-8', csv());
      return {
        message: `Exported ${done} contacts`,
        result: { fileName, url: `/v2/${input.account}/exports/${fileName}`, contacts: done },
      };
    },
  };
}
