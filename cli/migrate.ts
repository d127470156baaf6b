// `herald migrate`: copies an account from any server that speaks the original's API into a Herald
// account (core/migration/run.ts), with its progress on stderr and the report as JSON on stdout.
import { runMigration, type MigrationInput } from '../core/migration/run';
import { StepClock, stepMessage } from '../core/migration/step-progress';
import type { MigrationReport } from '../core/migration/report';
import type { Store } from '../adapters/store/store';

export const MIGRATE_USAGE = `  herald migrate --from <base URL> --account <name> --key <API key>
                 [--to-account <name>] [--merge] [--rate <requests per second>]
                                        copy an account from a server speaking the original's API
                                        (fields, interests, lists, contacts, suppressions, templates,
                                        campaigns as drafts, webhooks disabled); prints the report`;

export interface MigrateOptions { from: string; account: string; key: string; toAccount: string; merge: boolean; rate: number }

/** The options of `migrate`, checked before anything is opened; `fail` throws the CLI's usage error. */
export function parseMigrateOptions(options: string[], fail: (message: string) => never): MigrateOptions {
  const values = new Map<string, string>();
  let merge = false;
  for (let i = 0; i < options.length; i += 1) {
    const option = options[i];
    if (option === '--merge') {
      merge = true;
      continue;
    }
    if (!['--from', '--account', '--key', '--to-account', '--rate'].includes(option)) fail(`unknown option for migrate: ${option}`);
    if (values.has(option)) fail(`${option} is given twice`);
    const value = options[i + 1];
    if (value === undefined || value.startsWith('--')) fail(`${option} takes a value`);
    values.set(option, value);
    i += 1;
  }
  for (const required of ['--from', '--account', '--key']) if (!values.has(required)) fail(`migrate needs ${required}`);
  const rate = Number(values.get('--rate') ?? 10);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 1000) fail('--rate takes a number of requests per second, above 0 and at most 1000');
  const account = values.get('--account')!;
  return { from: values.get('--from')!, account, key: values.get('--key')!, toAccount: values.get('--to-account') ?? account, merge, rate };
}

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
