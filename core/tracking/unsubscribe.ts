// An unsubscription from a message's link (the page or RFC 8058 one-click): the address goes on
// the account's suppression list (no more transactional mail to it), the account's contact with
// that address, when there is one and it is ACTIVE, becomes UNSUBSCRIBED (a BOUNCED or COMPLAINED
// contact keeps its state: it gets no mail either), and a `track.mail.unsubscribed` event is
// written, once per mail_id (the first reason stays). Each step is idempotent, so a repeated
// unsubscription (a double submit, a provider's retried one-click) changes nothing more.
import { unsubscribe } from '../contacts/contacts';
import type { EventWriter } from './event-writer';
import { eventOfSentMail } from './events';
import type { EventDoc, Store } from '../../adapters/store/store';
import { suppress } from '../sending/suppressions';
import { normaliseEmail } from '../accounts/users';

/** The reasons a person may give on the page, in the order it shows them. */
export const PAGE_REASONS = ['not_interested', 'too_frequent', 'spam_never_subscribed', 'spam_offensive'] as const;
export type PageReason = (typeof PAGE_REASONS)[number];
/** `oneclick`: a mail client's RFC 8058 POST. (`spam_fbl`, a complaint report, comes from the bounce handling.) */
export type UnsubscribeReason = PageReason | 'oneclick';

/** A page submitted without a reason is taken as the page's preselected one. */
export const DEFAULT_REASON: PageReason = 'not_interested';

/** Unsubscribes the address of the sent message `sent` (its ledger event); resolves once all three writes are stored. */
export async function unsubscribeMessage(store: Store, writer: EventWriter, sent: EventDoc, reason: UnsubscribeReason, at: Date): Promise<void> {
  await Promise.all([unsubscribeAddress(store, sent.account, sent.email), writer.write([unsubscribedEvent(sent, reason, at)])]);
}

/** The address off the account's mail: suppressed, and its contact (when ACTIVE) UNSUBSCRIBED. */
export async function unsubscribeAddress(store: Store, account: string, email: string): Promise<void> {
  await Promise.all([suppress(store, account, email, 'unsubscribed', 'unsubscribe'), unsubscribeContact(store, account, email)]);
}

/** The message's `track.mail.unsubscribed` event: one per mail_id, the first reason stays. */
export function unsubscribedEvent(sent: EventDoc, reason: UnsubscribeReason, at: Date): EventDoc {
  return eventOfSentMail(sent, 'track.mail.unsubscribed', at, 'unsubscribed', { reason });
}

async function unsubscribeContact(store: Store, account: string, email: string): Promise<void> {
  const contact = await store.contacts.findOne({ account, email: normaliseEmail(email) });
  if (contact?.state === 'ACTIVE') await unsubscribe(store, contact);
}
