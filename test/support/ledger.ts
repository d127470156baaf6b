// The send ledger as tests read it: rows in the shape of a message (mail_id as `_id`, its status,
// request, Message-ID, the relay's answer, its outcome event), whatever the store keeps them as
// (outcome events with `_ledger`, core/sending/ledger.ts). Filters name those fields.
import type { Filter } from 'mongodb';
import type { EventDoc, LedgerFields, LedgerRowDoc, Store } from '../../adapters/store/store';

export interface LedgerRowView {
  _id: string;
  account: string;
  email: string;
  requestId: string;
  messageId: string;
  status: LedgerFields['status'];
  relayResponse: string;
  sentAt: Date;
  sentBy?: LedgerFields['sentBy'];
  event: EventDoc;
}

/** Fields of the ledger kept under `_ledger` (`_id`, the mail_id, is `_outcome_of`). */
const LEDGER_KEYS: Record<string, keyof LedgerFields> = {
  requestId: 'requestId', messageId: 'messageId', status: 'status', relayResponse: 'relayResponse', sentAt: 'sentAt', sentBy: 'sentBy',
};

function filterOf(filter: Record<string, unknown>): Filter<LedgerRowDoc> {
  const translated: Record<string, unknown> = { _outcome_of: { $exists: true } };
  for (const [key, value] of Object.entries(filter)) translated[key === '_id' ? '_outcome_of' : LEDGER_KEYS[key] ? `_ledger.${LEDGER_KEYS[key]}` : key] = value;
  return translated as Filter<LedgerRowDoc>;
}

function viewOf(row: LedgerRowDoc): LedgerRowView {
  const { _outcome_of: mailId, _ledger: ledger, ...event } = row;
  return { ...ledger, _id: mailId, account: row.account, email: row.email, event: event as EventDoc };
}

/** The rows the filter selects, in the order they were stored. */
export async function ledgerRows(store: Store, filter: Record<string, unknown>): Promise<LedgerRowView[]> {
  return (await store.ledger.find(filterOf(filter)).sort({ _id: 1 }).toArray()).map(viewOf);
}

/** The first row the filter selects, or null. */
export async function ledgerRowOf(store: Store, filter: Record<string, unknown>): Promise<LedgerRowView | null> {
  return (await ledgerRows(store, filter))[0] ?? null;
}

export function ledgerCount(store: Store, filter: Record<string, unknown>): Promise<number> {
  return store.ledger.countDocuments(filterOf(filter));
}

/** Stores rows given in the message shape (a test's own ledger). */
export async function insertLedgerRows(store: Store, rows: LedgerRowView[]): Promise<void> {
  await store.ledger.insertMany(rows.map(({ _id, account, email, event, ...ledger }) => ({
    ...event, account, email, _outcome_of: _id, _ledger: ledger,
  })));
}
