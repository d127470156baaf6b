// What each `herald` command does once its arguments are read (./main.ts): on the store of
// ./store-access.ts, opened for the command and closed after it.
import { readAccountSettings, updateAccountSettings, type AccountSettings } from '../core/accounts/settings';
import { AccountError, createAccount } from '../core/accounts/accounts';
import { ConfigError, loadConfig } from '../composition/config';
import { randomToken } from '../core/accounts/keys';
import { createUser } from '../core/accounts/users';
import { AppError } from '../core/shared/errors';
import type { Store } from '../adapters/store/store';
import { openStoreForCli } from './store-access';
import { migrateCommand } from './migrate';
import { MigrationRefused } from '../core/migration/run';
import type { MigrateOptions } from './migrate-options';

/** A command as given, its arguments checked: what runCommand runs. */
export type Command =
  | { kind: 'account create'; name: string }
  | { kind: 'account set'; name: string; change: Partial<AccountSettings> }
  | { kind: 'account show'; name: string }
  | { kind: 'user create'; account: string; email: string }
  | { kind: 'migrate'; options: MigrateOptions };

export async function runCommand(command: Command): Promise<unknown> {
  switch (command.kind) {
    case 'account create':
      return withStore((store) => createAccount(store, command.name));
    case 'account set':
    case 'account show':
      return withStore(async (store) => {
        const { name } = command;
        const settings = command.kind === 'account set' ? await updateAccountSettings(store, name, command.change) : await readAccountSettings(store, name);
        if (!settings) throw new AccountError(`No account "${name}".`, 'invalid_name');
        return { account: name, ...settings };
      });
    case 'user create':
      return withStore(async (store) => {
        const { account, email } = command;
        if (!(await store.accounts.findOne({ _id: account }))) throw new AccountError(`No account "${account}".`, 'invalid_name');
        const password = randomToken(20);
        const user = await createUser(store, account, { email, password });
        return { account, id: user.id, email: user.email, password };
      });
    case 'migrate':
      return withStore((store) => migrateCommand(store, command.options, loadConfig().webhookAllowPrivate));
  }
}

/** An error the command explains in its message (printed alone), rather than a fault (printed with its stack). */
export function isKnownError(error: unknown): boolean {
  return error instanceof AccountError || error instanceof ConfigError || error instanceof AppError || error instanceof MigrationRefused;
}

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const { store, close } = await openStoreForCli(loadConfig());
  try {
    return await work(store);
  } finally {
    await close();
  }
}
