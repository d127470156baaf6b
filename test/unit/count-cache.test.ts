// Informational counts (core/shared/count-cache.ts): served from the cache, kept longer the more they cost.
import { COUNT_TTL_MS, countCache, countTtlMs, MAX_COUNT_TTL_MS } from '../../core/shared/count-cache';

it('keeps a count 50 times as long as it took, from 10 s to 2 minutes', () => {
  expect(countTtlMs(0)).toBe(COUNT_TTL_MS);
  expect(countTtlMs(100)).toBe(COUNT_TTL_MS);
  expect(countTtlMs(1000)).toBe(50_000);
  expect(countTtlMs(60_000)).toBe(MAX_COUNT_TTL_MS);
});

it('counts once for callers at once, and keeps a slow count longer than 10 s', async () => {
  let counted = 0;
  const cache = countCache(async (account) => {
    counted += 1;
    await new Promise((resolve) => setTimeout(resolve, account === 'slow' ? 400 : 0));
    return { n: counted };
  });
  const [first, second] = await Promise.all([cache.fetch('slow'), cache.fetch('slow')]);
  expect(first).toEqual({ n: 1 });
  expect(second).toBe(first);
  expect(counted).toBe(1);
  // It took at least 400 ms, so it is kept at least 20 s (a slower machine only keeps it longer).
  expect(cache.getRemainingTTL('slow')).toBeGreaterThan(19_000);
  expect(cache.getRemainingTTL('slow')).toBeLessThanOrEqual(MAX_COUNT_TTL_MS);
});
