// Reading many contacts of an account, a page at a time by id: each page is one store command,
// `{account, id: {$in: [from … from + size - 1]}, …filter}`, which the unique index (account, id)
// answers by lookups. On the embedded store any other filter reads the whole collection in one
// command and keeps every match in memory: at 100,000 contacts an export or a launch held the
// contacts for seconds while the API's reads and writes of contacts waited behind it. Pages walk
// the ids 1 … the account's contacts counter (every contact id comes from it: adapters/store/
// counters.ts), so a page costs a few milliseconds whoever asked, and other requests run between
// two pages. A process has at most BULK_PAGES_IN_FLIGHT pages in flight, whatever the number of
// jobs reading: a dozen exports at once take turns instead of queueing a dozen pages before a
// light call.
import pLimit from 'p-limit';
import type { Document, Filter } from 'mongodb';
import type { ContactDoc, Store } from '../../adapters/store/store';
import { lastId } from '../../adapters/store/counters';
import { perStore } from '../../adapters/store/per-store';

/** Ids per page: a page is at most this many documents, read in some milliseconds. */
export const CONTACT_ID_PAGE = 1000;
/** Pages read at once by one process's bulk jobs (per store connection). */
export const BULK_PAGES_IN_FLIGHT = 2;

const bulkReads = perStore(() => pLimit(BULK_PAGES_IN_FLIGHT));

export interface ContactIdPage<T> {
  /** The page's contacts that match the filter, in id order. */
  contacts: T[];
  /** Ids walked so far, of `ids`: the progress of the whole read. */
  walked: number;
  ids: number;
}

/**
 * The account's contacts matching `filter` (without `account` or `id`), page by page in id
 * order; those created after the read started are not in it. `projection` must keep `id`.
 */
export async function* contactIdPages<T extends { id: number } = ContactDoc>(
  store: Store, account: string, filter: Filter<ContactDoc>, projection?: Document, pageSize = CONTACT_ID_PAGE,
): AsyncGenerator<ContactIdPage<T>> {
  const ids = await lastId(store, account, 'contacts');
  const limit = bulkReads(store);
  for (let from = 1; from <= ids; from += pageSize) {
    const to = Math.min(ids, from + pageSize - 1);
    const range = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const contacts = await limit(() => store.contacts.find<T>({ ...filter, account, id: { $in: range } }, projection ? { projection } : {}).toArray());
    contacts.sort((a, b) => a.id - b.id);
    yield { contacts, walked: to, ids };
  }
}
