// The one recording of messages that are not sent, for every sender (transactional requests,
// campaign pages, automation emails): given up (the relay's trouble or its deferrals outlasted
// the retries), content that cannot be built, a request whose record is gone, and drops decided
// instead of a send (a cancelled batch, an unsubscribed contact, a suppressed address). Each gets its ledger row (its
// outcome event) like any outcome, so accepted work always ends in an event; a failure here is a soft
// bounce (the address is not at fault).
import { buildEvent } from '../tracking/events';
import type { EventDoc, LedgerFields, LedgerRowDoc } from '../../adapters/store/store';
import { ledgerRow, type LedgerWriter } from './ledger';
import type { PlannedMessage } from './plan';

/** Why a message is recorded without being sent. */
export type Unsent =
  /** Retries or deferrals ran out: `reason` says what kept it from the relay. */
  | { why: 'gave-up'; reason: string }
  /** Its content cannot be built (the same content fails the same way on every retry). */
  | { why: 'unbuildable'; reason: string }
  /** Its request's record is not in the store: nothing can be sent. */
  | { why: 'request-missing' }
  /** Dropped instead of sent: its batch was cancelled, its contact is not ACTIVE, its address is suppressed. */
  | { why: 'cancelled' | 'unsubscribed' | 'suppressed' };

/** Event texts are capped: a reason may be a long relay or renderer message. */
const MAX_TEXT = 500;

function outcomeOf(message: PlannedMessage, unsent: Unsent, at: Date): { status: LedgerFields['status']; response: string; event: EventDoc } {
  const softBounce = (uniqueness: string, text: string) => buildEvent('track.mail.bounced', message.subject, at, uniqueness, {
    bounce_type: 'soft', message: text.slice(0, MAX_TEXT),
  });
  switch (unsent.why) {
    case 'gave-up':
      return { status: 'failed', response: unsent.reason, event: softBounce('gave-up', `not sent: ${unsent.reason}`) };
    case 'unbuildable':
      return { status: 'failed', response: unsent.reason, event: softBounce('unbuildable', `the message could not be built: ${unsent.reason}`) };
    case 'request-missing':
      return {
        status: 'failed',
        response: 'request record not found',
        event: softBounce('request-missing', `send request ${message.requestId} was not found in the store: nothing was sent`),
      };
    default:
      return { status: 'dropped', response: unsent.why, event: buildEvent('track.mail.dropped', message.subject, at, unsent.why) };
  }
}

/** The ledger row of a message not sent (its sent_timestamp: now). */
export function unsentRow(message: PlannedMessage, unsent: Unsent, at = new Date()): LedgerRowDoc {
  message.subject.sent_timestamp = at;
  const { status, response, event } = outcomeOf(message, unsent, at);
  return ledgerRow(message, status, response, event);
}

/** Records each message as not sent, for the same reason; resolves once every row is stored. Returns the count. */
export async function recordUnsent(ledger: LedgerWriter, messages: PlannedMessage[], unsent: Unsent): Promise<number> {
  const at = new Date();
  await Promise.all(messages.map((message) => ledger.record(unsentRow(message, unsent, at))));
  return messages.length;
}
