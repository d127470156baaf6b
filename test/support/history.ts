// An account's message history written straight to the store, as it would be if it had been
// sent days ago: events and ledger rows whose `_id`s were made at their own time (as a send or a
// hit then would have stored them), and the send requests they came from.
import { ObjectId } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { buildEvent, type TrackType } from '../../core/tracking/events';
import type { EventDoc, LedgerRowDoc, SendRequestDoc, Store } from '../../adapters/store/store';

export const DAY = 86_400_000;

/** An ObjectId made at `ms` (as `new ObjectId()` then would have been). */
export function idAt(ms: number): ObjectId {
  return new ObjectId(Math.floor(ms / 1000).toString(16).padStart(8, '0') + randomBytes(8).toString('hex'));
}

export interface Message { account: string; batchId: string; mailId: string; email: string; sentAt: number; requestId: string; mailType?: string }

/** A message's event of `type` at `at`. */
export function eventOf(message: Message, type: TrackType, at: number, extra: Record<string, unknown> = {}): EventDoc {
  const event = buildEvent(type, {
    account: message.account, batch_id: message.batchId, mail_id: message.mailId, email: message.email, sent_timestamp: new Date(message.sentAt),
    tags: [], custom_args: {}, mta: 'herald.test', mail_type: message.mailType,
  }, new Date(at), `${type}-${at}-${randomBytes(4).toString('hex')}`, extra);
  return { ...event, _id: idAt(at) };
}

/** The message's ledger row: its outcome event (`sent`, or a bounce at sending) at its send time. */
export function outcomeOf(message: Message, type: 'track.mail.sent' | 'track.mail.bounced' = 'track.mail.sent', extra: Record<string, unknown> = {}): LedgerRowDoc {
  return {
    ...eventOf(message, type, message.sentAt, extra),
    _outcome_of: message.mailId,
    _ledger: {
      requestId: message.requestId, messageId: `<${message.mailId}@herald.test>`, status: type === 'track.mail.sent' ? 'sent' : 'failed',
      relayResponse: '250 OK', sentAt: new Date(message.sentAt),
    },
  };
}

/** The id of the account's request `key` (request ids are unique across accounts). */
export const requestIdOf = (account: string, key: string) => `${account}-${key}`;

/** A message of the account's transactional request `key`, its `n`th recipient. */
export function transactionalMessage(account: string, key: string, n: number, sentAt: number): Message {
  return { account, batchId: `${account}_transactional_${key}`, mailId: `${account}_${key}_${n}`, email: `r${n}@example.net`, sentAt, requestId: requestIdOf(account, key) };
}

/** The account's stored transactional request `key`, of one recipient per address (JSON of a validated body). */
export function requestOf(account: string, key: string, acceptedAt: number, emails: string[], launchAt?: number): SendRequestDoc {
  return {
    _id: requestIdOf(account, key), account, source: 'http', batchId: `${account}_transactional_${key}`, acceptedAt: new Date(acceptedAt),
    ...(launchAt !== undefined ? { launchAt: new Date(launchAt) } : {}),
    payload: JSON.stringify({ from: { email: 'shop@example.com' }, subject: 'Old news', content: { html: '<p>Hi</p>' }, recipients: emails.map((email) => ({ to: { email } })) }),
  };
}

export async function storeHistory(store: Store, events: EventDoc[], requests: SendRequestDoc[] = []): Promise<void> {
  if (events.length > 0) await store.events.insertMany(events);
  if (requests.length > 0) await store.sendRequests.insertMany(requests);
}

/** How many of the account's events each of these messages has now. */
export async function eventCounts(store: Store, account: string, mailIds: string[]): Promise<Record<string, number>> {
  const events = await store.events.find({ account, mail_id: { $in: mailIds } }).project<{ mail_id: string }>({ _id: 0, mail_id: 1 }).toArray();
  return Object.fromEntries(mailIds.map((mailId) => [mailId, events.filter((event) => event.mail_id === mailId).length]));
}
