import { ApplicationFailure } from '@temporalio/activity';
import { endTask, TASK_NOT_ACTIVE, updateActiveTask } from '../core/tasks/tasks';
import type { Store } from '../adapters/store/store';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';

export { TASK_INPUT_ERROR, TASK_NOT_ACTIVE } from '../core/tasks/tasks';

/** What every task workflow does at its start and its end, whatever the task is. */
export function createTaskActivities({ store }: { store: Store }) {
  return {
    /** INITIALIZING, with its start time; fails (not retried) when the task was cancelled while queued. */
    async beginTask(input: TaskWorkflowInput): Promise<void> {
      const active = await updateActiveTask(store, input.account, input.taskId, { state: 'INITIALIZING', init: new Date(), message: 'Starting' });
      if (!active) throw ApplicationFailure.nonRetryable(`task ${input.taskId} is no longer active`, TASK_NOT_ACTIVE);
    },

    /** FINISHED with the work's result, or FAILED with a message the owner can act on. */
    async finishTask(input: TaskWorkflowInput & { state: 'FINISHED' | 'FAILED'; message: string; result?: unknown }): Promise<void> {
      await endTask(store, input.account, input.taskId, input);
    },
  };
}
