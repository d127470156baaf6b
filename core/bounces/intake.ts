// A report taken by the SMTP listener (or a provider's webhook, the bounces API: recordFeedback),
// turned into what it means for the message it is about:
// - a bounce: a `track.mail.bounced` event (bounce_type, message); a hard one also puts the
//   address on the account's suppression list (reason bounced) and marks its contact BOUNCED. A
//   soft bounce only records the event: the address stays mailable (a full mailbox, a greylisting
//   or a server down says nothing lasting about it);
// - a complaint: a `track.mail.unsubscribed` event with reason spam_fbl, the address suppressed
//   (reason complained) and its contact marked COMPLAINED.
// Each report's event has a track_id derived from the report (its Message-ID), so a report
// delivered twice records one event; the suppression and the contact's state are idempotent too.
// Everything is stored before this resolves: the listener answers 250 only then.
import { errors } from '../shared/errors';
import { eventOfSentMail, recordEvents } from '../tracking/events';
import { metrics } from '../../adapters/metrics/registry';
import type { ContactState, EventDoc, MessageDoc, Store } from '../../adapters/store/store';
import { suppress } from '../sending/suppressions';
import { trackingSecret } from '../content/tracking/secret';
import { normaliseEmail } from '../accounts/users';
import { outcomeOf, type ReportOutcome } from './outcome';
import { parseReport, type Report } from './report';
import { mailIdOfMessageId, readBounceAddress, type BounceAddress } from './return-path';

export interface ReportDeps { store: Store; bounceDomain: string }

export type ReportResult =
  | { recorded: 'bounce'; account: string; mailId: string; email: string; bounceType: 'hard' | 'soft' }
  | { recorded: 'complaint'; account: string; mailId: string; email: string }
  | { recorded: 'nothing'; why: string; account?: string; mailId?: string; unreadable?: true };

/**
 * `to`: the address the report was sent to, a message's return path or one of the report mailboxes.
 * `unreadable` in the answer: the message is no report Herald reads (unparsable, or neither a DSN nor
 * an ARF report, such as a person's reply); the bounce mailbox leaves those for a person.
 */
export async function takeReport(deps: ReportDeps, raw: Buffer, to: Exclude<BounceAddress, { kind: 'forged' }>): Promise<ReportResult> {
  const { store } = deps;
  let report: Report;
  try {
    report = await parseReport(raw);
  } catch {
    return { recorded: 'nothing', why: 'the report could not be parsed', unreadable: true };
  }
  if (to.kind === 'mailbox' && report.kind === 'other') {
    return { recorded: 'nothing', why: 'neither a delivery status notification nor a feedback report', unreadable: true };
  }
  const mailId = to.kind === 'message' ? to.mailId : reportedMailId(report, await trackingSecret(store), deps.bounceDomain);
  if (!mailId) return { recorded: 'nothing', why: 'the report names no message Herald sent' };
  return recordFeedback(store, mailId, (email) => outcomeOf(report, email), `report:${report.id}`, {
    // A signed return path is one Herald gave a message: its ledger row may be a moment behind a
    // fast bounce (written just after the relay's answer). The reporting MTA tries again later.
    notYetRecorded: to.kind === 'message',
  });
}

/**
 * Records what a report (a DSN or ARF by mail, a provider's webhook event, the generic bounces API)
 * says of one message Herald sent: `outcomeFor` reads it for the message's recipient. `uniqueness`
 * names the report (its Message-ID, the provider's event id): the same report taken twice records
 * one event. `notYetRecorded`: a mail_id with no ledger row is answered 503 (try again), not
 * "nothing", because it was certainly sent by Herald (its ledger row may be a moment behind).
 */
export async function recordFeedback(
  store: Store, mailId: string, outcomeFor: (email: string) => ReportOutcome, uniqueness: string, options: { notYetRecorded?: boolean } = {},
): Promise<ReportResult> {
  const sent = await sentMessage(store, mailId);
  if (!sent) {
    if (options.notYetRecorded) throw errors.unavailable('The message of this return path is not recorded yet, try again later');
    return { recorded: 'nothing', why: 'the reported message is not in the send ledger', mailId };
  }
  const { account } = sent;
  if (sent.status !== 'sent') return { recorded: 'nothing', why: `the message was not sent (${sent.status})`, account, mailId };
  const outcome = outcomeFor(sent.event.email);
  if (outcome.kind === 'none') return { recorded: 'nothing', why: outcome.why, account, mailId };
  await recordOutcome(store, sent.event, outcome, uniqueness);
  const email = sent.event.email;
  return outcome.kind === 'bounce'
    ? { recorded: 'bounce', account, mailId, email, bounceType: outcome.bounceType }
    : { recorded: 'complaint', account, mailId, email };
}

/**
 * The message a report sent to a fixed mailbox is about: a Herald return path in it (the feedback
 * report's Original-Mail-From, the returned message's Return-Path), checked like one the report
 * was sent to; else the returned message's Message-ID, which names its mail_id.
 */
export function reportedMailId(report: Report, secret: Buffer, bounceDomain: string): string | undefined {
  if (report.kind === 'other') return undefined;
  const paths = [report.kind === 'arf' ? report.originalMailFrom : undefined, report.reported.returnPath];
  for (const path of paths) {
    const address = path ? readBounceAddress(path, secret, bounceDomain) : undefined;
    if (address?.kind === 'message') return address.mailId;
  }
  return mailIdOfMessageId(report.reported.messageId);
}

/** The ledger row of a mail_id: the mail_id is unique across accounts, and the row says whose it is. */
async function sentMessage(store: Store, mailId: string): Promise<Pick<MessageDoc, 'account' | 'status' | 'event'> | undefined> {
  const row = await store.messages.findOne({ _id: mailId }, { projection: { account: 1, status: 1, event: 1 } });
  return row ?? undefined;
}

async function recordOutcome(store: Store, sent: EventDoc, outcome: Exclude<ReportOutcome, { kind: 'none' }>, uniqueness: string): Promise<void> {
  const at = new Date();
  const { account, email } = sent;
  const event = outcome.kind === 'bounce'
    ? eventOfSentMail(sent, 'track.mail.bounced', at, uniqueness, { bounce_type: outcome.bounceType, message: outcome.message })
    : eventOfSentMail(sent, 'track.mail.unsubscribed', at, uniqueness, { reason: 'spam_fbl' });
  const lasting = outcome.kind === 'complaint' || outcome.bounceType === 'hard';
  await Promise.all([
    recordEvents(store, [event]).then((inserted) => {
      if (inserted > 0 && outcome.kind === 'bounce') metrics.messages.inc({ outcome: 'bounced' });
    }),
    lasting ? recordAddressFeedback(store, account, email, outcome.kind === 'bounce' ? 'hard' : 'complaint', at) : undefined,
  ]);
}

/**
 * What a hard bounce or a complaint does to the address, with or without a message to record it
 * against (the bounces API takes reports about addresses Herald never mailed): the suppression
 * (reason bounced or complained, source report) and the contact's state. Idempotent.
 */
export async function recordAddressFeedback(store: Store, account: string, email: string, kind: 'hard' | 'complaint', at = new Date()): Promise<void> {
  await Promise.all([
    suppress(store, account, email, kind === 'hard' ? 'bounced' : 'complained', 'report'),
    markContact(store, account, email, kind === 'hard' ? 'BOUNCED' : 'COMPLAINED', at),
  ]);
}

/**
 * The account's contact of that address, if there is one, takes the state. A complaint outranks
 * everything (the person said so); a hard bounce does not turn a COMPLAINED contact BOUNCED.
 */
async function markContact(store: Store, account: string, email: string, state: ContactState, at: Date): Promise<void> {
  const contact = await store.contacts.findOne({ account, email: normaliseEmail(email) }, { projection: { _id: 1, state: 1 } });
  if (!contact || contact.state === state || (state === 'BOUNCED' && contact.state === 'COMPLAINED')) return;
  await store.contacts.updateOne({ _id: contact._id, account }, { $set: { state, lastModified: at, inactivated: at } });
}
