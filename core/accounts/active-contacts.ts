// The number of ACTIVE contacts an account's information shows (GET /v2/{account}: plan.contacts.active),
// kept up to COUNT_TTL_MS (core/shared/count-cache.ts: a count reads every contact of the account).
import type { Store } from '../../adapters/store/store';
import { perStore } from '../../adapters/store/per-store';
import { countCache } from '../shared/count-cache';

const counts = perStore((store) => countCache(async (account) => ({ active: await store.contacts.countDocuments({ account, state: 'ACTIVE' }) })));

/** The account's ACTIVE contacts, as counted at most COUNT_TTL_MS ago (or just now, the first time). */
export async function activeContacts(store: Store, account: string): Promise<number> {
  return (await counts(store).fetch(account))!.active;
}
