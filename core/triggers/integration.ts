// The account's custom-triggers integration: activating it issues the trigger address
// `<public URL>/events/customtriggers/<account>/init/<a>/<b>`, the original's shape, whose two
// 8-hex-digit parts (32 random bits each) are the credential. Only the SHA-256 of `a/b` is
// stored, so the address is shown once (at activation or rotation); rotating replaces it and
// deactivating clears it, and both take effect at once in every API process, since the intake
// reads the integration's document on every request.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { errors } from '../shared/errors';
import { byId } from '../../adapters/batching/read-batch';
import { isDuplicateKey, type IntegrationDoc, type Store } from '../../adapters/store/store';
import { perStore } from '../../adapters/store/per-store';

/** The two parts of a trigger address's credential. */
export interface TriggerAddress { a: string; b: string }

/** What GET shows: never the address (only its hash is kept). */
export interface TriggerIntegrationStatus { active: boolean; activated: Date | null; rotated: Date | null; deactivated: Date | null }

const PART = /^[0-9a-f]{8}$/;

const integrationId = (account: string) => `${account}:customtriggers`;

const hashOf = ({ a, b }: TriggerAddress) => createHash('sha256').update(`${a}/${b}`, 'utf8').digest();

function newAddress(): TriggerAddress {
  return { a: randomBytes(4).toString('hex'), b: randomBytes(4).toString('hex') };
}

/** The trigger address a client posts its events to. */
export function triggerUrl(publicUrl: string, account: string, { a, b }: TriggerAddress): string {
  return `${publicUrl.replace(/\/+$/, '')}/events/customtriggers/${account}/init/${a}/${b}`;
}

/** The integration's state, all null when it was never activated. */
export async function triggerIntegrationStatus(store: Store, account: string): Promise<TriggerIntegrationStatus> {
  const doc = await store.integrations.findOne({ _id: integrationId(account), account });
  return { active: doc?.active ?? false, activated: doc?.activated ?? null, rotated: doc?.rotated ?? null, deactivated: doc?.deactivated ?? null };
}

/**
 * Activates the integration with a new address. Already active: RESOURCE_EXISTS (a second address is never
 * issued beside the first: rotation replaces it). Two simultaneous activations cannot both
 * succeed: the first creates the document (unique _id) or flips `active` with a conditional
 * update; the other finds it active.
 */
export async function activateTriggers(store: Store, account: string, now = new Date()): Promise<{ address: TriggerAddress; activated: Date }> {
  const address = newAddress();
  const fields = { active: true, credentialHash: hashOf(address).toString('hex'), activated: now, rotated: null, deactivated: null };
  const _id = integrationId(account);
  try {
    await store.integrations.insertOne({ _id, account, kind: 'customtriggers', ...fields });
    return { address, activated: now };
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  const { matchedCount } = await store.integrations.updateOne({ _id, account, active: false }, { $set: fields });
  if (matchedCount === 0) throw errors.conflict('The custom-triggers integration is already active: POST …/customtriggers/rotate issues a new address');
  return { address, activated: now };
}

/** Replaces the address of the active integration: the old one is refused from now on. Not active: NOT_FOUND. */
export async function rotateTriggers(store: Store, account: string, now = new Date()): Promise<{ address: TriggerAddress; rotated: Date }> {
  const address = newAddress();
  const { matchedCount } = await store.integrations.updateOne(
    { _id: integrationId(account), account, active: true },
    { $set: { credentialHash: hashOf(address).toString('hex'), rotated: now } },
  );
  if (matchedCount === 0) throw errors.notFound('The custom-triggers integration is not active: activate it');
  return { address, rotated: now };
}

/** Deactivates the integration (idempotent): every address is refused from now on. Returns when it was deactivated. */
export async function deactivateTriggers(store: Store, account: string, now = new Date()): Promise<{ deactivated: Date | null }> {
  const _id = integrationId(account);
  const { matchedCount } = await store.integrations.updateOne(
    { _id, account, active: true },
    { $set: { active: false, credentialHash: null, deactivated: now } },
  );
  if (matchedCount > 0) return { deactivated: now };
  return { deactivated: (await store.integrations.findOne({ _id, account }))?.deactivated ?? null };
}

/** Integration lookups of events arriving together go out as one query (adapters/batching/read-batch.ts): not a cache. */
const integrationsById = perStore((store) => byId<IntegrationDoc>((ids) => store.integrations.find({ _id: { $in: ids } }).toArray()));

/**
 * Whether `a`/`b` is the account's current trigger address. The document is read for every
 * request, so a rotation or deactivation applies at once everywhere; the hashes are compared in
 * constant time. Malformed parts are refused without a read.
 */
export async function verifyTriggerAddress(store: Store, account: string, a: string, b: string): Promise<boolean> {
  if (!PART.test(a) || !PART.test(b)) return false;
  const doc = await integrationsById(store).get(integrationId(account));
  if (!doc || !doc.active || doc.account !== account || typeof doc.credentialHash !== 'string') return false;
  const stored = Buffer.from(doc.credentialHash, 'hex');
  const given = hashOf({ a, b });
  return stored.length === given.length && timingSafeEqual(stored, given);
}
