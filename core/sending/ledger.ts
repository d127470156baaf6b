// The send ledger, written in groups. A message's row (its outcome with its event) must be in the
// store as soon as the relay answered, since a resend after a crash skips exactly the rows it
// finds; but a store round trip per message would put the store on the sending path. So rows
// queue while a write is in flight and the next write takes all of them (WriteQueue): messages
// the relay accepted within a few milliseconds share one round trip, and the window in which a
// crash can cause a duplicate stays that short. The first outcome recorded for a mail_id wins. Rows and
// their events go in one round trip each, side by side: an event whose row a crash kept out is
// harmless, since a resend's event has the same track_id and is skipped.
import { recordEvents } from '../tracking/events';
import { WriteQueue } from '../../adapters/batching/write-queue';
import { metrics } from '../../adapters/metrics/registry';
import { insertSkippingDuplicates, type EventDoc, type MessageDoc, type Store } from '../../adapters/store/store';
import type { PlannedMessage } from './plan';

/** A ledger row: the message's outcome with its event and its Message-ID. */
export function ledgerRow(message: PlannedMessage, status: MessageDoc['status'], relayResponse: string, event: EventDoc): MessageDoc {
  return {
    _id: message.mailId,
    account: message.subject.account,
    requestId: message.requestId,
    email: message.email,
    messageId: message.messageId,
    status,
    relayResponse,
    sentAt: new Date(event.timestamp),
    event,
  };
}

/** The Temporal run that sends (transactional requests): stamped on the rows it records. */
export type SentBy = NonNullable<MessageDoc['sentBy']>;

export class LedgerWriter {
  private readonly queue: WriteQueue<MessageDoc>;

  constructor(store: Store, private readonly sentBy?: SentBy) {
    this.queue = new WriteQueue(async (rows) => {
      const [inserted] = await Promise.all([
        insertSkippingDuplicates(store.messages, rows), // the first outcome of a mail_id stays
        recordEvents(store, rows.map((row) => row.event)),
      ]);
      countOutcomes(rows, inserted);
    });
  }

  /** Resolves once the row and its event are stored. */
  record(row: MessageDoc): Promise<void> {
    return this.queue.add([this.sentBy ? { ...row, sentBy: this.sentBy } : row]);
  }
}

/** A ledger row's outcome for herald_messages_total: a failed row with a bounce event is a bounce. */
function outcomeOf(row: MessageDoc): 'sent' | 'bounced' | 'dropped' | 'failed' {
  if (row.status === 'failed') return row.event.track_type === 'track.mail.bounced' ? 'bounced' : 'failed';
  return row.status;
}

/**
 * Counts the rows this write stored, each under its outcome. A write that met rows already
 * stored (an attempt racing its retry) counts the new ones under the first row's outcome.
 */
function countOutcomes(rows: MessageDoc[], inserted: number): void {
  if (inserted === rows.length) for (const row of rows) metrics.messages.inc({ outcome: outcomeOf(row) });
  else if (inserted > 0) metrics.messages.inc({ outcome: outcomeOf(rows[0]) }, inserted);
}
