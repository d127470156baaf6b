import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Store } from '../adapters/store/store';
import type { TaskWorkflowInput } from '../adapters/temporal/contracts';
import { MIGRATION_STEPS, MigrationRefused, runMigration } from '../core/migration/run';
import { StepClock, stepMessage } from '../core/migration/step-progress';
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
