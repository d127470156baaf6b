import { ApplicationFailure, Context } from '@temporalio/activity';
import { endTask, TASK_NOT_ACTIVE, updateActiveTask } from '../core/tasks/tasks';
import { startUnstartedTasks, type UnstartedSweep } from '../core/tasks/unstarted';
import type { Store } from '../adapters/store/store';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';

export { TASK_INPUT_ERROR, TASK_NOT_ACTIVE } from '../core/tasks/tasks';

/** What every task workflow does at its start and its end, whatever the task is; and the task sweeper's work. */
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

    /** Starts the workflows of tasks recorded but never started (the task sweeper's Schedule, every minute). */
    sweepUnstartedTasks(): Promise<UnstartedSweep> {
      const context = Context.current();
      return startUnstartedTasks({ store, temporal: context.client, taskQueue: context.info.taskQueue, heartbeat: () => context.heartbeat() });
    },
  };
}
