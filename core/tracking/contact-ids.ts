// The contact_id a click reports: the id of the account's contact with the message's address,
// found by the unique {account, email} index. Clicks of one message come in bursts and many
// messages go to the same few addresses, so answers (a missing contact too) are kept for a
// minute, and lookups of one turn share a query (adapters/batching/read-batch.ts).
import { perStore } from '../../adapters/store/per-store';
import { ReadBatch } from '../../adapters/batching/read-batch';
import type { Store } from '../../adapters/store/store';
import { normaliseEmail } from '../accounts/users';

const KEEP_MS = 60_000;
const MAX_CACHED = 20_000;

interface Lookups { cache: Map<string, { id: string | undefined; until: number }>; batches: Map<string, ReadBatch<string, string>> }

const lookupsOf = perStore((): Lookups => ({ cache: new Map(), batches: new Map() }));

/** The id (as a string, as the original's events show it) of the account's contact with this address, if any. */
export async function contactIdOf(store: Store, account: string, email: string): Promise<string | undefined> {
  const state = lookupsOf(store);
  const address = normaliseEmail(email);
  const key = `${account}\u0000${address}`;
  const now = Date.now();
  const cached = state.cache.get(key);
  if (cached && cached.until > now) return cached.id;
  let batch = state.batches.get(account);
  if (!batch) {
    batch = new ReadBatch<string, string>(async (emails) => {
      const found = await store.contacts.find({ account, email: { $in: emails } }).project<{ email: string; id: number }>({ email: 1, id: 1 }).toArray();
      return new Map(found.map((contact) => [contact.email, String(contact.id)]));
    });
    state.batches.set(account, batch);
  }
  const id = await batch.get(address);
  state.cache.delete(key);
  if (state.cache.size >= MAX_CACHED) state.cache.delete(state.cache.keys().next().value!);
  state.cache.set(key, { id, until: now + KEEP_MS });
  return id;
}
