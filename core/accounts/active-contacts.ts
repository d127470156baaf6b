// The number of ACTIVE contacts an account's information shows (GET /v2/{account}: plan.contacts.active).
// Counting reads every contact of the account (the embedded store has no index on state), which
// with 100,000 contacts costs the store more than the rest of the request: polled by a client or a
// dashboard, it took most of the store's time during a campaign. The figure is informational, so
// it is kept a few seconds and refreshed in the background while the stale one is served: at
// most one count per account every COUNT_TTL_MS, and no caller waits for it but the first.
import { LRUCache } from 'lru-cache';
import type { Store } from '../../adapters/store/store';
import { perStore } from '../../adapters/store/per-store';

/** How long a count is served before the next request refreshes it (in the background). */
export const COUNT_TTL_MS = 10_000;

const counts = perStore((store) => new LRUCache<string, number>({
  max: 10_000,
  ttl: COUNT_TTL_MS,
  allowStale: true,
  noDeleteOnStaleGet: true,
  fetchMethod: (account) => store.contacts.countDocuments({ account, state: 'ACTIVE' }),
}));

/** The account's ACTIVE contacts, as counted at most COUNT_TTL_MS ago (or just now, the first time). */
export async function activeContacts(store: Store, account: string): Promise<number> {
  return (await counts(store).fetch(account))!;
}
