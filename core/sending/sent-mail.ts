// What Herald knows of a message after it left: its ledger row, its outcome event
// (core/sending/ledger.ts), which carries every general field later events repeat (batch_id,
// email, tags, custom_args, mta, sent_timestamp, mail_type). Tracking hits and bounce reports name
// a message by its mail_id; this finds its row with one read of the ledger's unique mail_id index. A row never changes once
// written (the first outcome of a mail_id stays), so rows read are kept for later hits, for an
// hour: a message whose history retention pruned (core/retention/) is not known for longer; and
// lookups that arrive in the same turn share one query (adapters/batching/read-batch.ts).
import { perStore } from '../../adapters/store/per-store';
import { ReadBatch } from '../../adapters/batching/read-batch';
import type { EventDoc, Store } from '../../adapters/store/store';

/** Ledger events kept per store; beyond it the oldest are dropped (read again when needed). */
const MAX_CACHED = 20_000;
/** How long a row read is kept: retention prunes every hour, so a pruned message stops being served soon after. */
const CACHED_MS = 3_600_000;

interface Reader { cache: Map<string, { event: EventDoc; until: number }>; batches: Map<string, ReadBatch<string, EventDoc>> }

const readerOf = perStore((): Reader => ({ cache: new Map(), batches: new Map() }));

/** The ledger event of the account's message `mailId`, or undefined when no such message was recorded. */
export async function sentEventOf(store: Store, account: string, mailId: string): Promise<EventDoc | undefined> {
  const reader = readerOf(store);
  const key = `${account}\u0000${mailId}`;
  const cached = reader.cache.get(key);
  if (cached && cached.until > Date.now()) return cached.event;
  if (cached) reader.cache.delete(key);
  let batch = reader.batches.get(account);
  if (!batch) {
    batch = new ReadBatch<string, EventDoc>(async (ids) => {
      const rows = await store.ledger.find({ _outcome_of: { $in: ids }, account }).toArray();
      return new Map(rows.map((row) => [row._outcome_of, row]));
    });
    reader.batches.set(account, batch);
  }
  const event = await batch.get(mailId);
  if (event) {
    if (reader.cache.size >= MAX_CACHED) reader.cache.delete(reader.cache.keys().next().value!);
    reader.cache.set(key, { event, until: Date.now() + CACHED_MS });
  }
  return event;
}
