// The send ledger, written in groups. A message's outcome (sent, bounced at send, dropped) is one
// durable record: its event in `events`, marked `_outcome_of` its mail_id (a unique index keeps
// the first outcome of a mail_id) and carrying the ledger's fields under `_ledger`. It must be in the store as
// soon as the relay answered, since a resend after a crash skips exactly the messages it finds
// there; but a store round trip per message would put the store on the sending path. So rows
// queue while a write is in flight and the next write takes all of them (WriteQueue): messages
// the relay accepted within a few milliseconds share one round trip, and the window in which a
// crash can cause a duplicate stays that short.
import { recordEvents } from '../tracking/events';
import { noteLateDuplicates } from '../tracking/late-writes';
import { WriteQueue } from '../../adapters/batching/write-queue';
import { metrics } from '../../adapters/metrics/registry';
import type { EventDoc, LedgerFields, LedgerRowDoc, Store } from '../../adapters/store/store';
import type { PlannedMessage } from './plan';

/**
 * A ledger row: the message's outcome event with the ledger's fields (its status, the relay's
 * answer, its Message-ID), added to the event itself (built for this row alone: no copy per message).
 */
export function ledgerRow(message: PlannedMessage, status: LedgerFields['status'], relayResponse: string, event: EventDoc): LedgerRowDoc {
  return Object.assign(event, {
    _outcome_of: message.mailId,
    _ledger: {
      requestId: message.requestId,
      messageId: message.messageId,
      status,
      relayResponse,
      sentAt: new Date(event.timestamp),
    },
  });
}

/** The Temporal run that sends (transactional requests): stamped on the rows it records. */
export type SentBy = NonNullable<LedgerFields['sentBy']>;

export class LedgerWriter {
  private readonly queue: WriteQueue<LedgerRowDoc>;

  constructor(store: Store, private readonly sentBy?: SentBy) {
    this.queue = new WriteQueue(async (rows) => {
      // A row already stored (same mail_id, or the same event: an attempt racing its retry) is skipped;
      // its stored copy may be a dead attempt's late write, which webhook delivery must hear of.
      const inserted = await recordEvents(store, rows);
      countOutcomes(rows, inserted);
      if (inserted < rows.length) await noteLateDuplicates(store, rows);
    });
  }

  /** Resolves once the row is stored. */
  record(row: LedgerRowDoc): Promise<void> {
    if (this.sentBy) row._ledger.sentBy = this.sentBy;
    return this.queue.add([row]);
  }
}

/** A ledger row's outcome for herald_messages_total: a failed row (its event a bounce) is a bounce. */
function outcomeOf(row: LedgerRowDoc): 'sent' | 'bounced' | 'dropped' | 'failed' {
  if (row._ledger.status === 'failed') return row.track_type === 'track.mail.bounced' ? 'bounced' : 'failed';
  return row._ledger.status;
}

/**
 * Counts the rows this write stored, each under its outcome. A write that met rows already
 * stored (an attempt racing its retry) counts the new ones under the first row's outcome.
 */
function countOutcomes(rows: LedgerRowDoc[], inserted: number): void {
  if (inserted === rows.length) for (const row of rows) metrics.messages.inc({ outcome: outcomeOf(row) });
  else if (inserted > 0) metrics.messages.inc({ outcome: outcomeOf(rows[0]) }, inserted);
}
