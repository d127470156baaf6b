import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { updateActiveTask } from '../core/tasks/tasks';
import type { Store } from '../adapters/store/store';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';
import { TASK_NOT_ACTIVE } from './tasks';

/** The task record is written at most this often; heartbeats go on every report. */
const WRITE_EVERY_MS = 1000;

/**
 * Progress of a task's long activity: heartbeats Temporal with a checkpoint (so a retry resumes
 * there, and a cancelled workflow reaches the activity), and keeps the task's `completed` and
 * `eta` current for GET /tasks/{id}. Stops the work (throws) once the task is cancelled.
 */
export class TaskProgress {
  private lastWrite = 0;
  private readonly started = Date.now();
  /** Units done at the first report: a resumed attempt measures its own rate. */
  private baseline: number | undefined;

  constructor(private readonly store: Store, private readonly input: TaskWorkflowInput) {}

  /**
   * `done` of `total` units (total undefined while unknown); `checkpoint` goes into the
   * heartbeat; `eta` (seconds) when the caller knows better than the overall rate (a task of
   * unequal steps). Call after each batch.
   */
  async report(done: number, total: number | undefined, checkpoint: unknown, message: string, eta?: number): Promise<void> {
    const context = Context.current();
    context.heartbeat(checkpoint);
    if (context.cancellationSignal.aborted) throw new CancelledFailure('task cancelled');
    const now = Date.now();
    if (now - this.lastWrite < WRITE_EVERY_MS && done !== total) return;
    this.lastWrite = now;
    this.baseline ??= done;
    const completed = total ? Math.min(1, done / total) : 0;
    const rate = (done - this.baseline) / Math.max(1, (now - this.started) / 1000);
    const left = eta ?? (total && rate > 0 ? Math.ceil((total - done) / rate) : -1);
    const active = await updateActiveTask(this.store, this.input.account, this.input.taskId, { state: 'PROCESSING', completed, eta: left, message });
    if (!active) throw ApplicationFailure.nonRetryable(`task ${this.input.taskId} is no longer active`, TASK_NOT_ACTIVE);
  }
}
