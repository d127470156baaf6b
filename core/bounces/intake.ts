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
import { TurnBatch } from '../../adapters/batching/turn-batch';
import { perStore } from '../../adapters/store/per-store';
import { errors } from '../shared/errors';
import { eventOfSentMail, recordEvents } from '../tracking/events';
import { metrics } from '../../adapters/metrics/registry';
import type { ContactState, EventDoc, LedgerRowDoc, Store } from '../../adapters/store/store';
import { suppressMany } from '../sending/suppressions';
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

/** One report about one message Herald sent: `outcomeFor` reads it for the message's recipient. */
export interface FeedbackItem {
  mailId: string;
  outcomeFor: (email: string) => ReportOutcome;
  /** Names the report (its Message-ID, the provider's event id): the same report taken twice records one event. */
  uniqueness: string;
}

/**
 * Records what a report (a DSN or ARF by mail, a provider's webhook event, the generic bounces API)
 * says of one message Herald sent. `notYetRecorded`: a mail_id with no ledger row is answered 503
 * (try again), not "nothing", because it was certainly sent by Herald (its ledger row may be a
 * moment behind).
 */
export async function recordFeedback(
  store: Store, mailId: string, outcomeFor: (email: string) => ReportOutcome, uniqueness: string, options: { notYetRecorded?: boolean } = {},
): Promise<ReportResult> {
  const result = await feedbackBatches(store).add({ mailId, outcomeFor, uniqueness });
  if (options.notYetRecorded && result.recorded === 'nothing' && !result.account) {
    throw errors.unavailable('The message of this return path is not recorded yet, try again later');
  }
  return result;
}

/** Reports arriving in the same turn (a provider's batch, concurrent webhook requests) are recorded together. */
const feedbackBatches = perStore((store) => new TurnBatch<FeedbackItem, ReportResult>(
  async (items) => (await recordFeedbacks(store, items)).map((value) => ({ value })),
));

/**
 * Records many reports at once: one read of the ledger rows, one insert of the events, one write of
 * the suppressions and one update of the contacts per account and state, whatever the number.
 * Results in the items' order.
 */
async function recordFeedbacks(store: Store, items: FeedbackItem[]): Promise<ReportResult[]> {
  const rows = await sentMessages(store, [...new Set(items.map((item) => item.mailId))]);
  const at = new Date();
  const events: EventDoc[] = [];
  const lasting: AddressFeedback[] = [];
  const results = items.map((item): ReportResult => {
    const { mailId } = item;
    const sent = rows.get(mailId);
    if (!sent) return { recorded: 'nothing', why: 'the reported message is not in the send ledger', mailId };
    const { account } = sent;
    const { status } = sent._ledger;
    if (status !== 'sent') return { recorded: 'nothing', why: `the message was not sent (${status})`, account, mailId };
    const { email } = sent;
    const outcome = item.outcomeFor(email);
    if (outcome.kind === 'none') return { recorded: 'nothing', why: outcome.why, account, mailId };
    events.push(outcome.kind === 'bounce'
      ? eventOfSentMail(sent, 'track.mail.bounced', at, item.uniqueness, { bounce_type: outcome.bounceType, message: outcome.message })
      : eventOfSentMail(sent, 'track.mail.unsubscribed', at, item.uniqueness, { reason: 'spam_fbl' }));
    if (outcome.kind === 'complaint' || outcome.bounceType === 'hard') {
      lasting.push({ account, email, kind: outcome.kind === 'bounce' ? 'hard' : 'complaint' });
    }
    return outcome.kind === 'bounce'
      ? { recorded: 'bounce', account, mailId, email, bounceType: outcome.bounceType }
      : { recorded: 'complaint', account, mailId, email };
  });
  const bounces = events.filter((event) => event.track_type === 'track.mail.bounced');
  const complaints = events.filter((event) => event.track_type !== 'track.mail.bounced');
  await Promise.all([
    recordEvents(store, bounces).then((inserted) => { if (inserted > 0) metrics.messages.inc({ outcome: 'bounced' }, inserted); }),
    recordEvents(store, complaints),
    recordAddressFeedbacks(store, lasting, at),
  ]);
  return results;
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

/** The ledger rows of mail_ids: a mail_id is unique across accounts, and its row says whose it is. */
async function sentMessages(store: Store, mailIds: string[]): Promise<Map<string, LedgerRowDoc>> {
  const rows = await store.ledger.find({ _outcome_of: mailIds.length === 1 ? mailIds[0] : { $in: mailIds } }).toArray();
  return new Map(rows.map((row) => [row._outcome_of, row]));
}

/** What a hard bounce or a complaint does to an address of an account. */
export interface AddressFeedback { account: string; email: string; kind: 'hard' | 'complaint' }

/**
 * What a hard bounce or a complaint does to the address, with or without a message to record it
 * against (the bounces API takes reports about addresses Herald never mailed): the suppression
 * (reason bounced or complained, source report) and the contact's state. Idempotent.
 */
export async function recordAddressFeedback(store: Store, account: string, email: string, kind: 'hard' | 'complaint', at = new Date()): Promise<void> {
  await recordAddressFeedbacks(store, [{ account, email, kind }], at);
}

async function recordAddressFeedbacks(store: Store, reports: AddressFeedback[], at: Date): Promise<void> {
  if (reports.length === 0) return;
  // A complaint outranks a hard bounce of the same address in the same batch.
  const byAddress = new Map<string, AddressFeedback>();
  for (const report of reports) {
    const key = `${report.account}:${normaliseEmail(report.email)}`;
    if (byAddress.get(key)?.kind !== 'complaint') byAddress.set(key, { ...report, email: normaliseEmail(report.email) });
  }
  const unique = [...byAddress.values()];
  await Promise.all([
    suppressMany(store, unique.map(({ account, email, kind }) => ({ account, email, reason: kind === 'hard' ? 'bounced' : 'complained' })), 'report'),
    ...groupBy(unique, (r) => `${r.account}\n${r.kind}`).map((group) => markContacts(store, group[0].account, group.map((r) => r.email), group[0].kind === 'hard' ? 'BOUNCED' : 'COMPLAINED', at)),
  ]);
}

/**
 * The account's contacts of those addresses, if there are, take the state. A complaint outranks
 * everything (the person said so); a hard bounce does not turn a COMPLAINED contact BOUNCED.
 */
async function markContacts(store: Store, account: string, emails: string[], state: ContactState, at: Date): Promise<void> {
  const outranked: ContactState[] = state === 'BOUNCED' ? ['BOUNCED', 'COMPLAINED'] : ['COMPLAINED'];
  const email = emails.length === 1 ? emails[0] : { $in: emails };
  await store.contacts.updateMany({ account, email, state: { $nin: outranked } }, { $set: { state, lastModified: at, inactivated: at } });
}

function groupBy<T>(items: T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return [...groups.values()];
}
