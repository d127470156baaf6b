import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import {
  ImportInputError, runImport, summary, type ImportCheckpoint, type ImportCounts, type ImportParameters,
} from '../core/contacts/import/start';
import { deleteFile } from '../adapters/store/files';
import type { Store } from '../adapters/store/store';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';
import { activeTask, TASK_INPUT_ERROR } from '../core/tasks/tasks';
import { asActivity } from './adapter';
import { TaskProgress } from './task-progress';

/** A checkpoint from an earlier attempt's heartbeat (anything else: start from the beginning). */
function checkpointOf(details: unknown): ImportCheckpoint | undefined {
  const c = details as ImportCheckpoint | undefined;
  return typeof c?.line === 'number' && typeof c.counts?.rows === 'number' && Array.isArray(c.counts.errorSamples) ? c : undefined;
}

/** Activities of the ContactImport workflow. */
export function createContactImportActivities({ store }: { store: Store }) {
  /**
   * Imports the task's file (core/contacts/import/run.ts), reporting progress by bytes read and
   * heartbeating a checkpoint after every batch, so a retry resumes after the last batch written.
   * Stops before the next batch once the task is cancelled. A file or reference that is gone
   * fails the task at once (TASK_INPUT_ERROR); inline data's file is removed when done.
   */
  async function importContacts(input: TaskWorkflowInput): Promise<{ message: string; result: ImportCounts }> {
    const task = await activeTask(store, input.account, input.taskId);
    const parameters = task.parameters as unknown as ImportParameters;
    const { info, cancellationSignal } = Context.current();
    const progress = new TaskProgress(store, input);
    try {
      const counts = await runImport({
        store,
        account: input.account,
        parameters,
        resumeFrom: checkpointOf(info.heartbeatDetails),
        earlierAttemptsSince: info.attempt > 1 ? task.init ?? task.created : undefined,
        beforeWrite: async () => {
          if (cancellationSignal.aborted) throw new CancelledFailure('task cancelled');
          await activeTask(store, input.account, input.taskId); // cancelled through the API: stop now, not at the next progress write
        },
        afterWrite: (checkpoint, bytesRead, totalBytes) =>
          progress.report(bytesRead, totalBytes, checkpoint, `Importing: ${checkpoint.counts.rows} rows read`),
      });
      if (parameters.sourceFile.startsWith('raw-')) await deleteFile(store, input.account, parameters.sourceFile);
      return { message: summary(counts), result: counts };
    } catch (error) {
      if (error instanceof ImportInputError) throw ApplicationFailure.nonRetryable(error.message, TASK_INPUT_ERROR);
      throw error;
    }
  }

  return {
    importContacts: (input: TaskWorkflowInput) => asActivity(() => importContacts(input)),
  };
}
