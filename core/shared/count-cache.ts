// Counting contacts reads every contact counted: the embedded store has no index but unique ones.
// With 100,000 contacts a count costs the store more than the rest of a request, and polled by a
// client or a dashboard, counts took most of the store's time during a campaign. The counts an
// account's information and its lists show are informational, so a large one is kept a while and
// refreshed in the background while the stale one is served: no caller waits for it but the first.
// How long it is kept grows with what it cost: a count that took 2 s (100,000 contacts while a
// campaign and imports keep the store busy) is redone every 100 s, not every 10 s, so refreshing
// it takes at most 1/COUNT_COST_SHARE of the store's time however large or busy it is.
import { LRUCache } from 'lru-cache';

/** The shortest time a count is served before the next request refreshes it (in the background). */
export const COUNT_TTL_MS = 10_000;
/** The longest, however long the count took. */
export const MAX_COUNT_TTL_MS = 120_000;
/** A count is kept this many times as long as it took to make. */
const COUNT_COST_SHARE = 50;

/** How long a count that took `tookMs` to make is served. */
export function countTtlMs(tookMs: number): number {
  return Math.min(MAX_COUNT_TTL_MS, Math.max(COUNT_TTL_MS, Math.round(tookMs * COUNT_COST_SHARE)));
}

/** A cache of counts by account, `count` making one when there is none or it is older than its countTtlMs. */
export function countCache<V extends object>(count: (account: string) => Promise<V>): LRUCache<string, V> {
  return new LRUCache<string, V>({
    max: 10_000,
    ttl: COUNT_TTL_MS,
    allowStale: true,
    noDeleteOnStaleGet: true,
    fetchMethod: async (account, _stale, { options }) => {
      const startedAt = performance.now();
      const value = await count(account);
      options.ttl = countTtlMs(performance.now() - startedAt);
      return value;
    },
  });
}
