import { isDuplicateKey, Store } from '../../adapters/store/store';
import { issueKey } from './keys';
import { createOwner } from './users';
import { ACCOUNT_NAME, RESERVED_NAMES } from './names';

export class AccountError extends Error {
  constructor(message: string, readonly code: 'invalid_name' | 'exists') {
    super(message);
    this.name = 'AccountError';
  }
}

export interface NewAccount { account: string; apiKey: string; transactionalKey: string }

/**
 * Creates an account, its first user (the owner: every permission; a password only when given,
 * for signing in to the console as `owner@<name>`) with one API key, and one transactional key;
 * the keys are returned once.
 */
export async function createAccount(store: Store, name: string, ownerPassword?: string): Promise<NewAccount> {
  if (RESERVED_NAMES.has(name)) {
    throw new AccountError(`Invalid account name "${name}": it is reserved for a path of the API.`, 'invalid_name');
  }
  if (!ACCOUNT_NAME.test(name)) {
    throw new AccountError(
      `Invalid account name "${name}": use 1 to 40 lowercase letters and digits (no dashes, the keys start with "<name>-").`,
      'invalid_name',
    );
  }
  try {
    await store.accounts.insertOne({ _id: name, createdAt: new Date() });
  } catch (error) {
    if (isDuplicateKey(error)) throw new AccountError(`Account "${name}" already exists.`, 'exists');
    throw error;
  }
  const owner = await createOwner(store, name, ownerPassword);
  const { key: apiKey } = await issueKey(store, name, 'api', owner.id);
  const { key: transactionalKey } = await issueKey(store, name, 'transactional');
  return { account: name, apiKey, transactionalKey };
}
