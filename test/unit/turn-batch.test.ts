// Items added during one turn are handled by one call; each gets its own result or error.
import { TurnBatch } from '../../adapters/batching/turn-batch';

it('hands the items of one turn to one call and gives each its own result or error', async () => {
  const calls: number[][] = [];
  const batch = new TurnBatch<number, number>(async (items) => {
    calls.push(items);
    return items.map((n) => (n < 0 ? { error: new Error(`negative ${n}`) } : { value: n * 2 }));
  });
  const results = await Promise.allSettled([batch.add(1), batch.add(-1), batch.add(3)]);
  expect(results).toEqual([
    { status: 'fulfilled', value: 2 },
    { status: 'rejected', reason: new Error('negative -1') },
    { status: 'fulfilled', value: 6 },
  ]);
  expect(calls).toEqual([[1, -1, 3]]);
  expect(await batch.add(5)).toBe(10); // a later turn: a new call
  expect(calls).toEqual([[1, -1, 3], [5]]);
});

it('fails every item when the call fails, even synchronously', async () => {
  const batch = new TurnBatch<number, number>(() => { throw new Error('store down'); });
  const results = await Promise.allSettled([batch.add(1), batch.add(2)]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
});
