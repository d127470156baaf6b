// The resume from the ledger, the same for every sender (transactional requests, campaign pages,
// automation emails): a message whose mail_id has a row in the send ledger is done and is never
// sent again; the others remain. One equality read on the ledger's _id answers it. A crash
// between a row and its event may have kept the event out: the done messages' events are stored
// again (a known track_id is skipped; fresh _ids keep the events' cursor order).
import { ObjectId } from 'mongodb';
import { recordEvents } from '../tracking/events';
import type { EventDoc, MessageDoc, Store } from '../../adapters/store/store';

/** What the ledger holds of a message: its outcome and that outcome's event. */
export type LedgerOutcome = Pick<MessageDoc, 'status' | 'event'>;

/** Counts of done messages, by outcome. */
export type OutcomeCounts = Record<MessageDoc['status'], number>;

export interface LedgerResume {
  /** The done messages' outcomes, by mail_id. */
  done: Map<string, LedgerOutcome>;
  counts: OutcomeCounts;
  /** The mail_ids without a row, in the order asked: what is left to send. */
  remaining: string[];
}

/** The ledger's rows of `mailIds` (of the account), by mail_id. */
export async function readLedger(store: Store, account: string, mailIds: string[]): Promise<Map<string, LedgerOutcome>> {
  const rows = await readRows<Pick<MessageDoc, '_id' | 'status' | 'event'>>(store, account, mailIds, { _id: 1, status: 1, event: 1 });
  return new Map(rows.map((row) => [row._id, { status: row.status, event: row.event }]));
}

/** The statuses of the ledger's rows of `mailIds`, by mail_id: what a resend round asks of earlier rounds (the event is most of a row). */
export async function readLedgerStatuses(store: Store, account: string, mailIds: string[]): Promise<Map<string, MessageDoc['status']>> {
  const rows = await readRows<Pick<MessageDoc, '_id' | 'status'>>(store, account, mailIds, { _id: 1, status: 1 });
  return new Map(rows.map((row) => [row._id, row.status]));
}

function readRows<T extends { _id: string }>(store: Store, account: string, mailIds: string[], projection: Record<string, 1>): Promise<T[]> {
  return mailIds.length === 0 ? Promise.resolve([]) : store.messages.find({ _id: { $in: mailIds }, account }).project<T>(projection).toArray();
}

/**
 * Which of `mailIds` are done and which remain; the done ones' events are stored again. `read`:
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
  await restoreEvents(store, [...done.values()].map((row) => row.event));
  return { done, counts, remaining };
}

function restoreEvents(store: Store, events: EventDoc[]): Promise<number> {
  return events.length === 0 ? Promise.resolve(0) : recordEvents(store, events.map((event) => ({ ...event, _id: new ObjectId() })));
}
