// The `herald` command. Results go to stdout as JSON, messages to stderr.
import { AccountError, createAccount } from '../core/accounts';
import { ConfigError, loadConfig } from '../core/config';
import { randomToken } from '../core/keys';
import { createUser } from '../core/users';
import { AppError } from '../core/errors';
import type { Store } from '../core/store';
import { openStoreForCli } from './store-access';

const USAGE = `Usage:
  herald account create <name>          create an account; prints {"account","apiKey","transactionalKey"}
  herald user create <account> <email>  create a user with every permission and a new password;
                                        prints {"account","id","email","password"}

Account names are 1 to 40 lowercase letters and digits. Keys and passwords are shown once and
stored hashed (the user logs in with POST /v2/login and may change the password there).
The command uses MONGODB_URI, else the store of a running \`npm start\` for HERALD_DATA_DIR,
else starts that data folder's embedded store for the duration of the command.`;

class UsageError extends Error {}

async function run(args: string[]): Promise<unknown> {
  const [resource, action, ...rest] = args;
  if (resource === 'account' && action === 'create') {
    if (rest.length !== 1) throw new UsageError('account create takes exactly one name');
    return withStore((store) => createAccount(store, rest[0]));
  }
  if (resource === 'user' && action === 'create') {
    if (rest.length !== 2) throw new UsageError('user create takes an account and an email');
    const [account, email] = rest;
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError(`not an email address: ${email}`);
    return withStore(async (store) => {
      if (!(await store.accounts.findOne({ _id: account }))) throw new AccountError(`No account "${account}".`, 'invalid_name');
      const password = randomToken(20);
      const user = await createUser(store, account, { email, password });
      return { account, id: user.id, email: user.email, password };
    });
  }
  throw new UsageError(resource ? `unknown command: ${args.join(' ')}` : 'no command given');
}

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const { store, close } = await openStoreForCli(loadConfig());
  try {
    return await work(store);
  } finally {
    await close();
  }
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
    const known = error instanceof AccountError || error instanceof ConfigError || error instanceof AppError;
    process.stderr.write(`herald: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
    process.exit(1);
  }
}

void main();
