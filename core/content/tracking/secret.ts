// The key that signs tracking links (core/content/tracking/token.ts). Every process (API,
// worker, any host) must sign and verify with the same key, across restarts, with nothing to
// configure: it lives in the store, made once. Simultaneous first callers (processes or hosts)
// each try to insert their random key under one _id; the unique _id lets exactly one in, and
// every caller reads back that one.
import { perStore } from '../../../adapters/store/per-store';
import { randomBytes } from 'node:crypto';
import { Binary } from 'mongodb';
import { isDuplicateKey, type Store } from '../../../adapters/store/store';

const SETTING = 'tracking-secret';
const SECRET_BYTES = 32;

/** The key once read, per store connection; a failure (the store unreachable) is not kept: the next caller tries again. */
const secretOf = perStore((): { read?: Promise<Buffer> } => ({}));

/** The service's tracking key (32 bytes), from the store; read once per store object. */
export function trackingSecret(store: Store): Promise<Buffer> {
  const held = secretOf(store);
  if (!held.read) {
    const read = loadSecret(store);
    held.read = read;
    read.catch(() => { if (held.read === read) held.read = undefined; });
  }
  return held.read;
}

async function loadSecret(store: Store): Promise<Buffer> {
  try {
    await store.serviceSettings.insertOne({ _id: SETTING, value: new Binary(randomBytes(SECRET_BYTES)), createdAt: new Date() });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  const doc = await store.serviceSettings.findOne({ _id: SETTING });
  const value = doc?.value instanceof Binary ? Buffer.from(doc.value.value()) : undefined;
  if (!value || value.length !== SECRET_BYTES) throw new Error(`The store's ${SETTING} setting is missing or not ${SECRET_BYTES} bytes`);
  return value;
}
