// The options and usage of `herald migrate`, checked before anything is loaded or opened (./main.ts).
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
