// Moves the send ledger of releases before 2026-11-29 onto the events. Those kept a row per
// message in `messages` beside its outcome event in `events`; now the outcome event is the row
// (marked `_outcome_of` its mail_id, its ledger fields under `_ledger`, core/sending/ledger.ts). Each old row's fields go onto its
// event (found by track_id; inserted from the row when a crash had kept it out), then the row is
// deleted. Every start runs it until `messages` is empty: each step is idempotent, so processes
// starting together, or a start killed midway, are harmless.
import type { LedgerFields, LegacyMessageDoc, Store } from './store';
import { insertSkippingDuplicates } from './store';

/** Rows moved per round trip. */
const BATCH = 1000;

function ledgerOf(row: LegacyMessageDoc): LedgerFields {
  return {
    requestId: row.requestId,
    messageId: row.messageId,
    status: row.status,
    relayResponse: row.relayResponse,
    sentAt: row.sentAt,
    ...(row.sentBy ? { sentBy: row.sentBy } : {}),
  };
}

/** Moves every old row; returns how many were moved (0 on a store that never had any: one empty read). */
export async function migrateLegacyLedger(store: Store): Promise<number> {
  let moved = 0;
  for (;;) {
    const rows = await store.legacyMessages.find({}).sort({ _id: 1 }).limit(BATCH).toArray();
    if (rows.length === 0) return moved;
    const trackIds = rows.map((row) => row.event.track_id);
    const stored = new Set((await store.events.find({ track_id: { $in: trackIds } }).project<{ track_id: string }>({ _id: 0, track_id: 1 }).toArray())
      .map((event) => event.track_id));
    const present = rows.filter((row) => stored.has(row.event.track_id));
    const missing = rows.filter((row) => !stored.has(row.event.track_id));
    if (present.length > 0) {
      await store.events.bulkWrite(present.map((row) => ({
        updateOne: { filter: { track_id: row.event.track_id }, update: { $set: { _outcome_of: row._id, _ledger: ledgerOf(row) } } },
      })), { ordered: false });
    }
    await insertSkippingDuplicates(store.ledger, missing.map((row) => ({ ...row.event, _outcome_of: row._id, _ledger: ledgerOf(row) })));
    await store.legacyMessages.deleteMany({ _id: { $in: rows.map((row) => row._id) } });
    moved += rows.length;
  }
}
