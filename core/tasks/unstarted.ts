// Tasks recorded whose workflow never started. launchTask (./tasks.ts) stores a task QUEUED, then
// starts its workflow; a process killed in between (or a start whose answer was lost) leaves a
// task nothing runs: a campaign SCHEDULED for ever, an import its owner waits on. The task
// sweeper (every minute: workflows/task-sweep.ts) starts the workflow of every task QUEUED for
// longer than a start takes. A start is harmless for a task whose workflow runs, or ran, already
// (adapters/temporal/client.ts: a task's workflow runs once), and a workflow acts only on a task
// still active, and a campaign launch only on a campaign naming its task, so a task recorded for
// a launch that was then refused ends at once.
import type { TaskDoc } from '../../adapters/store/store';
import { startTaskWorkflow } from '../../adapters/temporal/client';
import type { TaskType } from '../../adapters/temporal/contracts';
import type { TaskDeps } from './tasks';

/** A start takes milliseconds, or fails within its 5 s deadline (and the API then removes the task): a minute is far past either. */
export const UNSTARTED_AFTER_MS = 60_000;
/** Tasks a sweep looks at, at most; the next sweep takes the rest. */
const PER_SWEEP = 200;

/** `started`: tasks whose workflow runs now (started by this sweep, or found running); `failures`: starts that failed (retried next sweep). */
export interface UnstartedSweep { started: number; failures: number }

/** Starts the workflows of the tasks QUEUED since before `now` - UNSTARTED_AFTER_MS. */
export async function startUnstartedTasks(deps: TaskDeps & { heartbeat(): void }, now = new Date()): Promise<UnstartedSweep> {
  const queued = await deps.store.tasks
    .find({ state: 'QUEUED', created: { $lt: new Date(now.getTime() - UNSTARTED_AFTER_MS) } })
    .sort({ created: 1 })
    .limit(PER_SWEEP)
    .toArray();
  let failures = 0;
  for (const task of queued) {
    try {
      await startTaskWorkflow(deps.temporal, deps.taskQueue, task.type as TaskType, { account: task.account, taskId: task.id }, {
        workflowId: task.workflowId, campaignId: campaignOf(task),
      });
    } catch {
      failures += 1; // Temporal away: the next sweep tries again
    }
    deps.heartbeat();
  }
  return { started: queued.length - failures, failures };
}

function campaignOf(task: TaskDoc): number | undefined {
  const campaignId = task.parameters.campaignId;
  return typeof campaignId === 'number' ? campaignId : undefined;
}
