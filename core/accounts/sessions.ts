import { hashKey, randomToken } from './keys';
import { byId } from '../../adapters/batching/read-batch';
import { perStore } from '../../adapters/store/per-store';
import type { SessionDoc, Store } from '../../adapters/store/store';

/** Seconds a session lives without use (the original's tokenExpiration); each use extends it. */
export const SESSION_SECONDS = 3600;
/** Extending costs a write: done at most once a minute per session. */
const EXTEND_AFTER_MS = 60_000;

/** Starts a session and returns its token (32 alphanumerics, stored only as a hash). */
export async function createSession(store: Store, account: string, userId: number): Promise<string> {
  const token = randomToken();
  const now = Date.now();
  await store.sessions.insertOne({
    _id: hashKey(token), account, userId, createdAt: new Date(now), expiresAt: new Date(now + SESSION_SECONDS * 1000),
  });
  // Expired sessions of this user are swept here; lookups ignore them anyway.
  await store.sessions.deleteMany({ account, userId, expiresAt: { $lt: new Date(now) } });
  return token;
}

/** Session lookups of requests arriving together go out as one query (adapters/batching/read-batch.ts). */
const sessionsByHash = perStore((store) => byId((hashes) => store.sessions.find({ _id: { $in: hashes } }).toArray()));

/** The live session of a token, its expiry extended; null when unknown or expired. */
export async function findSession(store: Store, token: string): Promise<SessionDoc | null> {
  if (token.length < 8 || token.length > 200) return null;
  const found = await sessionsByHash(store).get(hashKey(token));
  const session = found ? { ...found } : null;
  const now = Date.now();
  if (!session || session.expiresAt.getTime() <= now) return null;
  const expiresAt = new Date(now + SESSION_SECONDS * 1000);
  if (expiresAt.getTime() - session.expiresAt.getTime() >= EXTEND_AFTER_MS) {
    await store.sessions.updateOne({ _id: session._id, account: session.account }, { $set: { expiresAt } });
  }
  return session;
}

/** Ends a session; false when the token was not a live session. */
export async function endSession(store: Store, token: string): Promise<boolean> {
  const session = await findSession(store, token);
  if (!session) return false;
  await store.sessions.deleteOne({ _id: session._id, account: session.account });
  return true;
}
