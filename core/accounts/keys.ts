import { createHash, randomBytes } from 'node:crypto';
import { nextId } from '../../adapters/store/counters';
import { byId } from '../../adapters/batching/read-batch';
import { perStore } from '../../adapters/store/per-store';
import type { KeyDoc, KeyKind, Store } from '../../adapters/store/store';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 32 random alphanumerics (about 190 bits), like the original service's keys. */
export function randomToken(length = 32): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  // Rejection sampling keeps every character equally likely.
  for (const byte of bytes) {
    if (byte < 248) out += ALPHANUMERIC[byte % 62];
    if (out.length === length) return out;
  }
  return out + randomToken(length - out.length);
}

/** Keys are high-entropy random strings, so a plain SHA-256 is a safe, indexable hash. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Clients derive the account from the text before the first '-', so keys keep that shape. */
export function formatKey(account: string, kind: KeyKind): string {
  return kind === 'transactional' ? `${account}-tr-${randomToken()}` : `${account}-${randomToken()}`;
}

/**
 * Creates a key, stores its hash, and returns the key itself (shown once, never stored) with
 * its id. An API key belongs to a user and acts with that user's permissions.
 */
export async function issueKey(store: Store, account: string, kind: KeyKind, userId?: number): Promise<{ id: number; key: string }> {
  const key = formatKey(account, kind);
  const id = await nextId(store, account, 'keys');
  await store.keys.insertOne({
    _id: hashKey(key),
    account,
    kind,
    id,
    ...(userId !== undefined ? { userId } : {}),
    hint: `${key.slice(0, key.lastIndexOf('-') + 5)}…`,
    createdAt: new Date(),
  });
  return { id, key };
}

/** Key lookups of requests arriving together go out as one query (adapters/batching/read-batch.ts). */
const keysByHash = perStore((store) => byId((hashes) => store.keys.find({ _id: { $in: hashes } }).toArray()));

/** The key's record when the key exists and is of the wanted kind. */
export async function findKey(store: Store, key: string, kind: KeyKind): Promise<KeyDoc | null> {
  if (key.length < 8 || key.length > 200) return null;
  const doc = await keysByHash(store).get(hashKey(key));
  return doc && doc.kind === kind ? { ...doc } : null;
}

/** The account's transactional keys (their hashes and hints; the keys themselves are never stored). */
export function transactionalKeys(store: Store, account: string): Promise<KeyDoc[]> {
  return store.keys.find({ account, kind: 'transactional' }).sort({ id: 1 }).limit(1000).toArray();
}

/** Revokes a transactional key: the next send with it is refused. False when there is no such key. */
export async function revokeTransactionalKey(store: Store, account: string, keyId: number): Promise<boolean> {
  const { deletedCount } = await store.keys.deleteOne({ account, kind: 'transactional', id: keyId });
  return deletedCount > 0;
}

/** A user's API keys (their hashes and hints; the keys themselves are never stored). */
export function userKeys(store: Store, account: string, userId: number): Promise<KeyDoc[]> {
  return store.keys.find({ account, kind: 'api', userId }).sort({ id: 1 }).limit(1000).toArray();
}

/** Revokes one of a user's API keys: it fails from the next request on. False when there is no such key. */
export async function revokeUserKey(store: Store, account: string, userId: number, keyId: number): Promise<boolean> {
  const { deletedCount } = await store.keys.deleteOne({ account, kind: 'api', userId, id: keyId });
  return deletedCount > 0;
}
