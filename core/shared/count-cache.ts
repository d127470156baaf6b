// Counting contacts reads every contact counted: the embedded store has no index but unique ones.
// With 100,000 contacts a count costs the store more than the rest of a request, and polled by a
// client or a dashboard, counts took most of the store's time during a campaign. The counts an
// account's information and its lists show are informational, so a large one is kept a few seconds
// and refreshed in the background while the stale one is served: at most one count per account
// every COUNT_TTL_MS, and no caller waits for it but the first.
import { LRUCache } from 'lru-cache';

/** How long a count is served before the next request refreshes it (in the background). */
export const COUNT_TTL_MS = 10_000;

/** A cache of counts by account, `count` making one when there is none or it is older than COUNT_TTL_MS. */
export function countCache<V extends object>(count: (account: string) => Promise<V>): LRUCache<string, V> {
  return new LRUCache<string, V>({ max: 10_000, ttl: COUNT_TTL_MS, allowStale: true, noDeleteOnStaleGet: true, fetchMethod: count });
}
