import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createTaskActivities } from '../activities/tasks';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';

type TaskActivities = ReturnType<typeof createTaskActivities>;

const { beginTask, finishTask } = proxyActivities<TaskActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumInterval: '30 seconds' },
});

/**
 * The life of every task workflow: INITIALIZING, the work, then FINISHED with its result or
 * FAILED with the reason. A cancelled workflow (POST /tasks/{id}/cancel already wrote
 * CANCELLED) ends cancelled; a task cancelled while queued ends without working. A run continued
 * as new passes `begun`: its task is under way already.
 */
export async function runTask(
  input: TaskWorkflowInput, work: () => Promise<{ message: string; result: unknown }>, options: { begun?: boolean } = {},
): Promise<void> {
  try {
    if (!options.begun) await beginTask(input);
    const { message, result } = await work();
    await finishTask({ ...input, state: 'FINISHED', message, result });
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (!(error instanceof ActivityFailure)) throw error;
    const cause = error.cause;
    if (cause instanceof ApplicationFailure && cause.type === 'TaskNotActive') return;
    // Input errors explain themselves; anything else (retries exhausted) is told without internals.
    const message = cause instanceof ApplicationFailure && cause.type === 'TaskInputError'
      ? cause.message : 'The task stopped on an unexpected error after several attempts; start it again';
    await finishTask({ ...input, state: 'FAILED', message });
  }
}
