import { ApplicationFailure } from '@temporalio/activity';
import { ACTIVE_STATES, endTask, updateActiveTask } from '../core/tasks/tasks';
import type { Store, TaskDoc } from '../adapters/store/store';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';

/** The failure type a task's activity throws when the task is no longer active (cancelled, or deleted). */
export const TASK_NOT_ACTIVE = 'TaskNotActive';
/** The failure type for input the task cannot work with (a bad file, a list that is gone): not retried. */
export const TASK_INPUT_ERROR = 'TaskInputError';

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

/** The task's record for an activity that works on it; a task that is gone or no longer active stops the work. */
export async function activeTask(store: Store, input: TaskWorkflowInput): Promise<TaskDoc> {
  const task = await store.tasks.findOne({ _id: `${input.account}:${input.taskId}`, account: input.account });
  if (!task || !ACTIVE_STATES.includes(task.state)) {
    throw ApplicationFailure.nonRetryable(`task ${input.taskId} is no longer active`, TASK_NOT_ACTIVE);
  }
  return task;
}
