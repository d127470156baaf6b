import { findKey } from './keys';
import { byId, perStore } from './read-batch';
import { findSession } from './sessions';
import type { Store } from './store';

/** Who a request acts as: an account's user, with that user's permissions as they are now. */
export interface Principal {
  account: string;
  userId: number;
  permissions: ReadonlySet<string>;
  via: 'key' | 'session';
}

/**
 * Resolves an account API credential: a user's API key or a login session token. A revoked key,
 * an ended or expired session, or a deleted user resolves to null at once.
 */
export async function resolveCredential(store: Store, credential: string): Promise<Principal | null> {
  const key = await findKey(store, credential, 'api');
  // Every API key belongs to a user (keys issued before users existed never served /v2).
  if (key) return key.userId === undefined ? null : principalOf(store, key.account, key.userId, 'key');
  const session = await findSession(store, credential);
  return session ? principalOf(store, session.account, session.userId, 'session') : null;
}

/**
 * User lookups of requests arriving together go out as one query (core/read-batch.ts), by `_id`
 * (`<account>:<id>`: a unique index answers it; the account is checked on the document too).
 */
const usersById = perStore((store) => byId((ids) => store.users.find({ _id: { $in: ids } }).toArray()));

async function principalOf(store: Store, account: string, userId: number, via: Principal['via']): Promise<Principal | null> {
  const user = await usersById(store).get(`${account}:${userId}`);
  return user?.account === account ? { account, userId, permissions: new Set(user.permissions), via } : null;
}
