// WriteQueue (adapters/batching/write-queue.ts): items added while a write is in flight go in the
// next write together, and adding nothing resolves at once rather than waiting for a write.
import { WriteQueue } from '../../adapters/batching/write-queue';

it('groups what arrives while a write is in flight, and resolves an empty add at once', async () => {
  const writes: number[][] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  const queue = new WriteQueue<number>(async (items) => {
    writes.push(items);
    if (writes.length === 1) await held;
  });
  const first = queue.add([1]);
  await new Promise((resolve) => setImmediate(resolve)); // the first write starts
  const later = [queue.add([2]), queue.add([3, 4])];
  await queue.add([]);
  release();
  await Promise.all([first, ...later]);
  expect(writes).toEqual([[1], [2, 3, 4]]);
});
