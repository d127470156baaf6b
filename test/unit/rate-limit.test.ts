// A relay's rate limit in one process (adapters/relay/rate-limit.ts), on jest's clock: the
// moments it lets messages go, whatever the machine's speed.
import { RateLimit } from '../../adapters/relay/rate-limit';

afterEach(() => jest.useRealTimers());

/** Takes `count` at once and advances the clock 5 ms at a time: when each was let go (ms from the start). */
async function releases(limit: RateLimit, count: number, forMs: number): Promise<number[]> {
  const start = Date.now();
  const at: number[] = [];
  for (let i = 0; i < count; i++) void limit.take().then(() => at.push(Date.now() - start));
  for (let t = 0; t < forMs; t += 5) {
    await Promise.resolve();
    jest.advanceTimersByTime(5);
  }
  await Promise.resolve();
  return at;
}

it('lets at most the rate go in any second (and a twentieth of a second of it at once), evenly', async () => {
  jest.useFakeTimers();
  const limit = new RateLimit(40, () => Date.now());
  const at = await releases(limit, 60, 3000);
  expect(at).toHaveLength(60);
  for (const start of at) expect(at.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(42);
  expect(at.at(-1)!).toBeGreaterThanOrEqual(1400); // (60 - 2) / 40 s
  limit.close();
});

it('lets nothing go at a rate of 0 until its rate is raised (a share other processes hold)', async () => {
  jest.useFakeTimers();
  const limit = new RateLimit(0, () => Date.now());
  limit.setRate(0);
  const at: number[] = [];
  void limit.take().then(() => at.push(Date.now()));
  jest.advanceTimersByTime(5_000);
  await Promise.resolve();
  expect(at).toEqual([]);
  limit.setRate(100);
  jest.advanceTimersByTime(50);
  await Promise.resolve();
  expect(at).toHaveLength(1);
  limit.close();
});
