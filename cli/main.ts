// The `herald` command. Results go to stdout as JSON, messages to stderr.
import { AccountError, createAccount } from '../core/accounts';
import { ConfigError, loadConfig } from '../core/config';
import { openStoreForCli } from './store-access';

const USAGE = `Usage:
  herald account create <name>   create an account; prints {"account","apiKey","transactionalKey"}

Account names are 1 to 40 lowercase letters and digits. Keys are shown once and stored hashed.
The command uses MONGODB_URI, else the store of a running \`npm start\` for HERALD_DATA_DIR,
else starts that data folder's embedded store for the duration of the command.`;

class UsageError extends Error {}

async function run(args: string[]): Promise<unknown> {
  const [resource, action, ...rest] = args;
  if (resource === 'account' && action === 'create') {
    if (rest.length !== 1) throw new UsageError('account create takes exactly one name');
    const config = loadConfig();
    const { store, close } = await openStoreForCli(config);
    try {
      return await createAccount(store, rest[0]);
    } finally {
      await close();
    }
  }
  throw new UsageError(resource ? `unknown command: ${args.join(' ')}` : 'no command given');
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(args.length === 0 ? 2 : 0);
  }
  try {
    const result = await run(args);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`herald: ${error.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    const known = error instanceof AccountError || error instanceof ConfigError;
    process.stderr.write(`herald: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
    process.exit(1);
  }
}

void main();
