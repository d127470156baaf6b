// The `herald` command. Results go to stdout as JSON, messages to stderr. The arguments are read
// first, with nothing but this module and its pure helpers loaded, so that --help and a usage error
// answer at once; the command itself (./commands.ts: the store, the migration) loads after.
import { normaliseDomain, type AccountSettings } from '../core/accounts/settings';
import type { Command } from './commands';
import { ACCOUNT_NAME } from '../core/accounts/names';
import { MIGRATE_USAGE, parseMigrateOptions } from './migrate-options';
import { DEFAULT_RETENTION_DAYS, isRetentionDays, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../core/retention/policy';

const USAGE = `Usage:
  herald account create <name>          create an account; prints {"account","apiKey","transactionalKey"}
  herald account set <name> [--attachments on|off] [--monthly-limit <n>|none]
                     [--sender-domain <domain>]... [--no-sender-domains]
                     [--trigger-hourly-limit <n>] [--retention-days <n>]
                                        change the account's sending policy; prints its settings
  herald account show <name>            print the account's settings as JSON (never its keys)
  herald user create <account> <email>  create a user with every permission and a new password;
                                        prints {"account","id","email","password"}
${MIGRATE_USAGE}

Account names are 1 to 40 lowercase letters and digits. Keys and passwords are shown once and
stored hashed (the user logs in with POST /v2/login and may change the password there).
Settings: --attachments on lets transactional sends carry attachments (off by default);
--monthly-limit caps the messages (recipients) accepted per calendar month in UTC (none: no
limit, the default); --sender-domain, repeatable, replaces the list of domains a send's From
may use with the ones given (exact domains: list a subdomain to allow it), and
--no-sender-domains clears it (no list: any From address); --trigger-hourly-limit sets how many
custom trigger events are accepted per clock hour in UTC (200 by default; 0 refuses them all);
--retention-days sets how many days request bodies and message events are kept (${MIN_RETENTION_DAYS} to
${MAX_RETENTION_DAYS}, ${DEFAULT_RETENTION_DAYS} by default; pruned every hour, counts kept).
Options not given stay as they are.
The command uses MONGODB_URI, else the store of a running \`npm start\` for HERALD_DATA_DIR,
else starts that data folder's embedded store for the duration of the command.`;

class UsageError extends Error {}

function parseCommand(args: string[]): Command {
  const [resource, action, ...rest] = args;
  if (resource === 'account' && action === 'create') {
    if (rest.length !== 1) throw new UsageError('account create takes exactly one name');
    return { kind: 'account create', name: rest[0] };
  }
  if (resource === 'account' && (action === 'set' || action === 'show')) {
    const [name, ...options] = rest;
    if (!name || name.startsWith('--')) throw new UsageError(`account ${action} takes an account name first`);
    if (!ACCOUNT_NAME.test(name)) throw new UsageError(`not an account name: ${name}`);
    if (action === 'show') {
      if (options.length > 0) throw new UsageError('account show takes only an account name');
      return { kind: 'account show', name };
    }
    return { kind: 'account set', name, change: parseSettingsOptions(options) };
  }
  if (resource === 'user' && action === 'create') {
    if (rest.length !== 2) throw new UsageError('user create takes an account and an email');
    const [account, email] = rest;
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError(`not an email address: ${email}`);
    return { kind: 'user create', account, email };
  }
  if (resource === 'migrate') {
    return { kind: 'migrate', options: parseMigrateOptions([action, ...rest].filter((arg) => arg !== undefined), (message) => { throw new UsageError(message); }) };
  }
  throw new UsageError(resource ? `unknown command: ${args.join(' ')}` : 'no command given');
}

/**
 * The options of `account set`, checked before the store is opened. Each may appear once,
 * except --sender-domain; at least one is needed (a set that changes nothing is a mistake).
 */
function parseSettingsOptions(options: string[]): Partial<AccountSettings> {
  const change: Partial<AccountSettings> = {};
  const domains: string[] = [];
  let clearDomains = false;
  const seen = new Set<string>();
  for (let i = 0; i < options.length; i += 1) {
    const option = options[i];
    const takesValue = ['--attachments', '--monthly-limit', '--sender-domain', '--trigger-hourly-limit', '--retention-days'].includes(option);
    if (!takesValue && option !== '--no-sender-domains') throw new UsageError(`unknown option for account set: ${option}`);
    if (option !== '--sender-domain' && seen.has(option)) throw new UsageError(`${option} is given twice`);
    seen.add(option);
    const value = takesValue ? options[(i += 1)] : undefined;
    if (takesValue && (value === undefined || value.startsWith('--'))) throw new UsageError(`${option} needs a value`);
    switch (option) {
      case '--attachments':
        if (value !== 'on' && value !== 'off') throw new UsageError(`--attachments takes on or off, not ${value}`);
        change.attachments = value === 'on';
        break;
      case '--monthly-limit':
        change.monthlyLimit = parseMonthlyLimit(value!);
        break;
      case '--trigger-hourly-limit':
        if (!/^\d{1,15}$/.test(value!)) throw new UsageError(`--trigger-hourly-limit takes a whole number of events, not ${value}`);
        change.triggerHourlyLimit = Number(value);
        break;
      case '--retention-days':
        if (!/^\d{1,5}$/.test(value!) || !isRetentionDays(Number(value))) {
          throw new UsageError(`--retention-days takes a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, not ${value}`);
        }
        change.retentionDays = Number(value);
        break;
      case '--sender-domain': {
        const domain = normaliseDomain(value!);
        if (!domain) throw new UsageError(`not a domain name: ${value} (give a name such as example.com, without @ or a trailing dot)`);
        domains.push(domain);
        break;
      }
      default:
        clearDomains = true;
    }
  }
  if (clearDomains && domains.length > 0) throw new UsageError('--no-sender-domains and --sender-domain contradict each other');
  if (clearDomains || domains.length > 0) change.senderDomains = domains;
  if (Object.keys(change).length === 0) throw new UsageError('account set needs at least one option');
  return change;
}

/** A whole number of messages (0 stops the account's sending), or none for no limit. */
function parseMonthlyLimit(value: string): number | null {
  if (value === 'none') return null;
  if (!/^\d{1,15}$/.test(value)) throw new UsageError(`--monthly-limit takes a whole number of messages or none, not ${value}`);
  return Number(value);
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(args.length === 0 ? 2 : 0);
  }
  let command: Command;
  try {
    command = parseCommand(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`herald: ${error.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  const { runCommand, isKnownError } = await import('./commands');
  try {
    const result = await runCommand(command);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    process.stderr.write(`herald: ${isKnownError(error) ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
    process.exit(1);
  }
}

void main();
