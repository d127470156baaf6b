import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Store } from '../adapters/store/store';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';
import { MIGRATION_STEPS, MigrationRefused, runMigration } from '../core/migration/run';
import type { MigrationReport } from '../core/migration/report';
import { activeTask, TASK_INPUT_ERROR } from '../core/tasks/tasks';
import { asActivity } from './adapter';
import { TaskProgress } from './task-progress';

/** What POST /migrations records as the task's parameters (the key is kept apart: MigrationKeyDoc). */
export interface MigrationParameters { from: string; sourceAccount: string; merge: boolean; rate: number }

/** Units of progress per step: the task's `completed` moves through the steps in order. */
const PER_STEP = 1000;

export function createMigrationActivities({ store, webhookAllowPrivate }: { store: Store; webhookAllowPrivate?: boolean }) {
  async function migrateAccount(input: TaskWorkflowInput): Promise<{ message: string; result: MigrationReport }> {
    const task = await activeTask(store, input.account, input.taskId);
    const parameters = task.parameters as unknown as MigrationParameters;
    const keyId = { _id: `${input.account}:${input.taskId}`, account: input.account };
    const key = (await store.migrationKeys.findOne(keyId))?.key;
    if (!key) throw ApplicationFailure.nonRetryable('The source\'s API key of this migration is gone: start it again', TASK_INPUT_ERROR);
    const progress = new TaskProgress(store, input);
    const stepClock = new StepClock();
    const context = Context.current();
    const beats = setInterval(() => context.heartbeat(), 10_000); // a slow source must not look like a dead worker
    try {
      const report = await runMigration({
        store,
        source: { baseUrl: parameters.from, account: parameters.sourceAccount, apiKey: key, requestsPerSecond: parameters.rate },
        account: input.account,
        merge: parameters.merge,
        allowPrivateWebhooks: webhookAllowPrivate,
        onProgress: (step, index, done, total) => {
          const within = total ? Math.min(1, done / total) : 0;
          const eta = stepClock.eta(index, done, total);
          return progress.report(Math.round((index + within) * PER_STEP), MIGRATION_STEPS.length * PER_STEP, null, stepMessage(step, index, done, total, eta), eta);
        },
      });
      await store.migrationKeys.deleteOne(keyId);
      const counts = Object.entries(report.kinds).map(([kind, counted]) => `${kind} ${counted.created + counted.updated + counted.unchanged}`).join(', ');
      return { message: `Migrated from ${parameters.from}: ${counts}`, result: report };
    } catch (error) {
      if (error instanceof MigrationRefused) {
        await store.migrationKeys.deleteOne(keyId);
        throw ApplicationFailure.nonRetryable(error.message, TASK_INPUT_ERROR);
      }
      throw error;
    } finally {
      clearInterval(beats);
    }
  }

  return {
    migrateAccount: (input: TaskWorkflowInput) => asActivity(() => migrateAccount(input)),
  };
}

/**
 * The step under way's own ETA, at its rate since its first counted batch: steps differ wildly
 * (ten fields, then 200,000 contacts) and a step may wait on the source first (its export).
 */
class StepClock {
  private index = -1;
  private first: { done: number; at: number } | undefined;

  /** Seconds left in step `index`; -1 until two counted reports give a rate. */
  eta(index: number, done: number, total: number | undefined): number {
    if (index !== this.index) {
      this.index = index;
      this.first = undefined;
    }
    if (!total || done <= 0) return -1;
    if (done >= total) return 0;
    if (!this.first) this.first = { done, at: Date.now() };
    if (done === this.first.done) return -1;
    const secondsPerElement = (Date.now() - this.first.at) / 1000 / (done - this.first.done);
    return Math.ceil((total - done) * secondsPerElement);
  }
}

/** `Step 4 of 8, contacts: 5,000 of 100,000, about 12 s left`, as the task's message. */
function stepMessage(step: string, index: number, done: number, total: number | undefined, eta: number): string {
  const head = `Step ${index + 1} of ${MIGRATION_STEPS.length}, ${step}`;
  if (total === undefined) return `${head}: ${done === 0 ? 'reading the source' : `${done.toLocaleString('en-US')} done`}`;
  const left = eta < 0 ? '' : eta < 60 ? `, about ${eta} s left` : `, about ${Math.ceil(eta / 60)} min left`;
  return `${head}: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}${left}`;
}
