// `herald migrate`: copies an account from any server that speaks the original's API into a Herald
// account (core/migration/run.ts), with its progress on stderr and the report as JSON on stdout.
// Its options are read by ./migrate-options.ts, before this module (and the migration's) loads.
import { runMigration, type MigrationInput } from '../core/migration/run';
import { StepClock, stepMessage } from '../core/migration/step-progress';
import type { MigrationReport } from '../core/migration/report';
import type { Store } from '../adapters/store/store';
import type { MigrateOptions } from './migrate-options';

/** Progress on stderr: a line redrawn in place on a terminal, else a line per step and every few seconds. */
function progressWriter(): NonNullable<MigrationInput['onProgress']> {
  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  let lastStep = '';
  const clock = new StepClock();
  return (step, index, done, total) => {
    const share = total ? Math.min(1, done / total) : 0;
    const bar = `[${'#'.repeat(Math.round(share * 20)).padEnd(20, '.')}]`;
    const line = `${bar} ${stepMessage(step, index, done, total, clock.eta(index, done, total))}`;
    if (tty) {
      process.stderr.write(`\r${line}\u001b[K`);
      return;
    }
    if (step !== lastStep || Date.now() - lastLine > 5000) {
      process.stderr.write(`${line}\n`);
      lastLine = Date.now();
      lastStep = step;
    }
  };
}

export async function migrateCommand(store: Store, options: MigrateOptions, allowPrivateWebhooks: boolean): Promise<MigrationReport> {
  const report = await runMigration({
    store,
    source: { baseUrl: options.from, account: options.account, apiKey: options.key, requestsPerSecond: options.rate },
    account: options.toAccount,
    merge: options.merge,
    allowPrivateWebhooks,
    onProgress: progressWriter(),
    onRetry: ({ path, status, delayMs }) => process.stderr.write(`\nthe source answered ${status ?? 'nothing'} to ${path}: trying again in ${Math.round(delayMs)} ms\n`),
  });
  if (process.stderr.isTTY) process.stderr.write('\n');
  return report;
}
