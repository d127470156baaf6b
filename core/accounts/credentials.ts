import { findKey, hashKey } from './keys';
import { byId } from '../../adapters/batching/read-batch';
import { perStore } from '../../adapters/store/per-store';
import { findSession } from './sessions';
import type { Store, UserDoc } from '../../adapters/store/store';

/** Who a request acts as: an account's user, with that user's permissions as they are now. */
export interface Principal {
  account: string;
  userId: number;
  permissions: ReadonlySet<string>;
  via: 'key' | 'session';
}

/** The user a credential belongs to: fixed when the key or session is made, never changed. */
interface Owner { account: string; userId: number; via: Principal['via'] }

/**
 * Owners of the credentials this process has resolved, so the next request with one reads the
 * credential and its user together (one store round trip instead of two). Only the link is kept,
 * which cannot change; both documents are still read on every request, so a revoked key, an
 * ended session, a deleted user or changed permissions count at once. Kept by the credential's
 * hash (no secret in memory longer than its request); bounded: the oldest entry goes when full.
 */
const owners = new Map<string, Owner>();
const MAX_OWNERS = 10_000;

function remember(hash: string, owner: Owner): void {
  if (owners.size >= MAX_OWNERS && !owners.has(hash)) owners.delete(owners.keys().next().value!);
  owners.set(hash, owner);
}

/**
 * Resolves an account API credential: a user's API key or a login session token. A revoked key,
 * an ended or expired session, or a deleted user resolves to null at once.
 */
export async function resolveCredential(store: Store, credential: string): Promise<Principal | null> {
  const hash = hashKey(credential);
  const known = owners.get(hash);
  if (known) {
    const [owner, user] = await Promise.all([ownerOf(store, credential, known.via), userOf(store, known.account, known.userId)]);
    if (owner && owner.account === known.account && owner.userId === known.userId) return principal(owner, user);
    owners.delete(hash); // gone (or, impossibly, another owner's now): resolve it afresh
    if (!owner) return null;
  }
  const owner = await ownerOf(store, credential, 'key') ?? await ownerOf(store, credential, 'session');
  if (!owner) return null;
  remember(hash, owner);
  return principal(owner, await userOf(store, owner.account, owner.userId));
}

/** The owner of a live key or session; null when there is none (or, for keys made before users, no user). */
async function ownerOf(store: Store, credential: string, via: Owner['via']): Promise<Owner | null> {
  const found = via === 'key' ? await findKey(store, credential, 'api') : await findSession(store, credential);
  return found?.userId === undefined ? null : { account: found.account, userId: found.userId, via };
}

/**
 * User lookups of requests arriving together go out as one query (adapters/batching/read-batch.ts), by `_id`
 * (`<account>:<id>`: a unique index answers it; the account is checked on the document too).
 */
const usersById = perStore((store) => byId((ids) => store.users.find({ _id: { $in: ids } }).toArray()));

async function userOf(store: Store, account: string, userId: number): Promise<UserDoc | undefined> {
  const user = await usersById(store).get(`${account}:${userId}`);
  return user?.account === account ? user : undefined;
}

function principal(owner: Owner, user: UserDoc | undefined): Principal | null {
  return user ? { account: owner.account, userId: owner.userId, permissions: new Set(user.permissions), via: owner.via } : null;
}
