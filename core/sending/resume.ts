// The resume from the ledger, the same for every sender (transactional requests, campaign pages,
// automation emails): a message whose mail_id has a row in the send ledger (its outcome event,
// ./ledger.ts) is done and is never sent again; the others remain. One read of the ledger's unique
// mail_id index answers it.
import type { Document } from 'mongodb';
import type { EventDoc, LedgerFields, LedgerRowDoc, Store } from '../../adapters/store/store';

/** What the ledger holds of a message: its outcome and that outcome's event. */
export interface LedgerOutcome { status: LedgerFields['status']; event: EventDoc }

/** Counts of done messages, by outcome. */
export type OutcomeCounts = Record<LedgerFields['status'], number>;

export interface LedgerResume {
  /** The done messages' outcomes, by mail_id. */
  done: Map<string, LedgerOutcome>;
  counts: OutcomeCounts;
  /** The mail_ids without a row, in the order asked: what is left to send. */
  remaining: string[];
}

/** The ledger's rows of `mailIds` (of the account), by mail_id. */
export async function readLedger(store: Store, account: string, mailIds: string[]): Promise<Map<string, LedgerOutcome>> {
  const rows = await readRows<LedgerRowDoc>(store, account, mailIds, undefined);
  return new Map(rows.map((row) => [row._outcome_of, { status: row._ledger.status, event: row }]));
}

/** The statuses of the ledger's rows of `mailIds`, by mail_id: what a resend round asks of earlier rounds (the event is most of a row). */
export async function readLedgerStatuses(store: Store, account: string, mailIds: string[]): Promise<Map<string, LedgerFields['status']>> {
  const rows = await readRows<Pick<LedgerRowDoc, '_outcome_of' | '_ledger'>>(store, account, mailIds, { _id: 0, _outcome_of: 1, '_ledger.status': 1 });
  return new Map(rows.map((row) => [row._outcome_of, row._ledger.status]));
}

function readRows<T extends Document>(store: Store, account: string, mailIds: string[], projection: Record<string, 0 | 1> | undefined): Promise<T[]> {
  if (mailIds.length === 0) return Promise.resolve([]);
  const found = store.ledger.find({ _outcome_of: { $in: mailIds }, account });
  return (projection ? found.project<T>(projection) : found).toArray() as Promise<T[]>;
}

/**
 * Which of `mailIds` are done and which remain. `read`:
 * rows the caller already read (a superset is fine: a campaign's resend reads earlier rounds too).
 */
export async function resumeFromLedger(
  store: Store, account: string, mailIds: string[], read?: Map<string, LedgerOutcome>,
): Promise<LedgerResume> {
  const rows = read ?? await readLedger(store, account, mailIds);
  const done = new Map<string, LedgerOutcome>();
  const counts: OutcomeCounts = { sent: 0, failed: 0, dropped: 0 };
  const remaining: string[] = [];
  for (const mailId of mailIds) {
    const row = rows.get(mailId);
    if (!row) {
      remaining.push(mailId);
      continue;
    }
    done.set(mailId, row);
    counts[row.status] += 1;
  }
  return { done, counts, remaining };
}
