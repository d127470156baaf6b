// Webhook endpoints of an account: where its tracking events are POSTed. Ids come from the
// account's `webhooks` counter. A new or re-enabled endpoint receives the events stored from
// that moment on (its cursor starts at the current second), never the account's history.
import { ObjectId } from 'mongodb';
import { nextId } from '../../adapters/store/counters';
import { errors, fieldError } from '../shared/errors';
import { TRACK_TYPES } from '../tracking/events';
import type { Store, WebhookDoc } from '../../adapters/store/store';
import { newWebhookSecret } from './signature';
import { checkWebhookUrl } from './url-policy';

/** Each endpoint is a workflow reading the account's events: an account has a few, not hundreds. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

export interface EndpointInput { url: string; events?: string[]; enabled?: boolean }

/** The endpoint as the API shows it; the secret only where the caller asks for it (create, rotate). */
export function endpointView(doc: WebhookDoc, withSecret = false) {
  return {
    id: doc.id, url: doc.url, events: doc.events ?? [...TRACK_TYPES], enabled: doc.enabled,
    ...(withSecret ? { secret: doc.secret } : {}),
  };
}

/** The cursor of an endpoint that starts receiving now: after every event of earlier seconds. */
export function cursorFromNow(now = Date.now()): ObjectId {
  return ObjectId.createFromTime(Math.floor(now / 1000));
}

async function checkedUrl(raw: string, allowPrivate: boolean): Promise<string> {
  const checked = await checkWebhookUrl(raw, allowPrivate);
  if ('problem' in checked) throw errors.validation({ url: fieldError('invalid_value', checked.problem) });
  return checked.url;
}

/** All types in the spec's order means "every type": stored as null, so types added later are sent too. */
function storedTypes(events: string[] | undefined): string[] | null {
  if (events === undefined) return null;
  const chosen = TRACK_TYPES.filter((type) => events.includes(type));
  return chosen.length === TRACK_TYPES.length ? null : chosen;
}

/** Creates an endpoint; `reservedId`: an id taken from the counter beforehand (a migration records it before creating). */
export async function createEndpoint(store: Store, account: string, input: EndpointInput, allowPrivate: boolean, reservedId?: number): Promise<WebhookDoc> {
  const url = await checkedUrl(input.url, allowPrivate);
  if ((await store.webhooks.countDocuments({ account })) >= MAX_ENDPOINTS_PER_ACCOUNT) {
    throw errors.badRequest(`An account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints`);
  }
  const id = reservedId ?? await nextId(store, account, 'webhooks');
  const now = new Date();
  const doc: WebhookDoc = {
    _id: `${account}:${id}`, account, id, url, events: storedTypes(input.events), enabled: input.enabled ?? true,
    secret: newWebhookSecret(), cursor: cursorFromNow(now.getTime()), created: now, lastModified: now,
  };
  await store.webhooks.insertOne(doc);
  return doc;
}

export function findEndpoint(store: Store, account: string, id: number): Promise<WebhookDoc | null> {
  return Number.isInteger(id) ? store.webhooks.findOne({ _id: `${account}:${id}`, account }) : Promise.resolve(null);
}

export async function findEndpoints(store: Store, account: string, options: { offset: number; limit: number; sortdir: 'asc' | 'desc'; q?: object }) {
  const filter = { account, ...(options.q ? { url: options.q } : {}) };
  const [items, total] = await Promise.all([
    store.webhooks.find(filter).sort({ id: options.sortdir === 'asc' ? 1 : -1 }).skip(options.offset).limit(options.limit).toArray(),
    store.webhooks.countDocuments(filter),
  ]);
  return { items, total };
}

/**
 * Applies the changes; returns the endpoint after them and whether it was just enabled (its
 * delivery workflow must start). Re-enabling moves the cursor to now: events stored while it
 * was disabled are not sent.
 */
export async function updateEndpoint(
  store: Store, endpoint: WebhookDoc, changes: Partial<EndpointInput>, allowPrivate: boolean,
): Promise<{ endpoint: WebhookDoc; enabledNow: boolean }> {
  const set: Partial<WebhookDoc> = { lastModified: new Date() };
  if (changes.url !== undefined) set.url = await checkedUrl(changes.url, allowPrivate);
  if (changes.events !== undefined) set.events = storedTypes(changes.events);
  const enabledNow = changes.enabled === true && !endpoint.enabled;
  if (changes.enabled !== undefined) set.enabled = changes.enabled;
  if (enabledNow) set.cursor = cursorFromNow();
  const updated = await store.webhooks.findOneAndUpdate({ _id: endpoint._id, account: endpoint.account }, { $set: set }, { returnDocument: 'after' });
  if (!updated) throw errors.notFound('No such webhook');
  return { endpoint: updated, enabledNow };
}

/** A new secret; requests signed from now on (within a few seconds) use it. */
export async function rotateSecret(store: Store, endpoint: WebhookDoc): Promise<WebhookDoc> {
  const updated = await store.webhooks.findOneAndUpdate(
    { _id: endpoint._id, account: endpoint.account },
    { $set: { secret: newWebhookSecret(), lastModified: new Date() } },
    { returnDocument: 'after' },
  );
  if (!updated) throw errors.notFound('No such webhook');
  return updated;
}

/** Deletes the endpoint with its waiting retries, its deliveries log and its discarded events; its workflow ends when it notices. */
export async function deleteEndpoint(store: Store, account: string, id: number): Promise<boolean> {
  const { deletedCount } = await store.webhooks.deleteOne({ _id: `${account}:${id}`, account });
  if (deletedCount === 0) return false;
  await Promise.all([
    store.webhookRetries.deleteMany({ account, endpointId: id }),
    store.webhookLog.deleteMany({ account, endpointId: id }),
    store.webhookDiscards.deleteMany({ account, endpointId: id }),
  ]);
  return true;
}
