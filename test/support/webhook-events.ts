// Events for webhook tests that need volume: built like the send engine builds them
// (core/tracking/events.ts buildEvent) and stored with recordEvents, as the tracking endpoints do.
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { buildEvent, recordEvents, type TrackType } from '../../core/tracking/events';
import type { EventDoc, Store, WebhookDoc } from '../../adapters/store/store';

let serial = 0;

/**
 * `count` events of the account, of the given types in turn. `ageMs` back-dates them, _ids
 * included (in order), so delivery reads them without waiting for the settle window.
 */
export function syntheticEvents(account: string, count: number, types: TrackType[] = ['track.mail.opened'], ageMs = 0): EventDoc[] {
  const at = new Date(Date.now() - ageMs);
  const run = (serial += 1);
  const prefix = `${Math.floor(at.getTime() / 1000).toString(16).padStart(8, '0')}${randomBytes(4).toString('hex')}`;
  return Array.from({ length: count }, (_, i) => {
    const subject = {
      account, batch_id: `${account}_transactional_synthetic`, mail_id: `mail_${run}_${i}`, email: `person${i}@example.net`,
      sent_timestamp: at, tags: ['synthetic'], custom_args: { n: String(i) }, mta: 'herald.test',
    };
    const event = buildEvent(types[i % types.length], subject, at, `synthetic-${run}-${i}`);
    if (ageMs > 0) event._id = new ObjectId(`${prefix}${i.toString(16).padStart(8, '0')}`);
    return event;
  });
}

/** Builds and stores them; returns their track_ids. */
export async function storeSyntheticEvents(store: Store, ...args: Parameters<typeof syntheticEvents>): Promise<string[]> {
  const events = syntheticEvents(...args);
  await recordEvents(store, events);
  return events.map((e) => e.track_id);
}

/**
 * Sets the endpoint's cursor a minute back, so its delivery reads the back-dated events above
 * (stored before or after) in one go; its running pass sees the cursor moved and starts afresh.
 */
export async function rewindCursor(store: Store, endpoint: Pick<WebhookDoc, 'account' | 'id'>): Promise<void> {
  const { matchedCount } = await store.webhooks.updateOne(
    { account: endpoint.account, id: endpoint.id },
    { $set: { cursor: ObjectId.createFromTime(Math.floor(Date.now() / 1000) - 60) } },
  );
  if (matchedCount !== 1) throw new Error(`no webhook endpoint ${endpoint.id} of ${endpoint.account} to rewind`);
}
