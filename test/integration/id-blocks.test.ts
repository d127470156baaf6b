// Ids from per-process blocks (adapters/store/id-blocks.ts) on the real store: unique across processes (each
// with its own store connection) and beside nextId on the same counter.
import { nextId } from '../../adapters/store/counters';
import { newId } from '../../core/shared/ids';
import { IdBlocks } from '../../adapters/store/id-blocks';
import { connectStore, type Store } from '../../adapters/store/store';

let stores: Store[];

beforeAll(async () => {
  const database = `herald_test_${newId().slice(0, 10)}`;
  // Two connections stand for two API processes: each keeps its own blocks.
  stores = await Promise.all([connectStore(process.env.MONGODB_URI!, database), connectStore(process.env.MONGODB_URI!, database)]);
});
afterAll(async () => {
  await stores[0].db.dropDatabase();
  await Promise.all(stores.map((s) => s.close()));
});

it('gives every taker an id no one else gets, across processes and beside nextId', async () => {
  const blocks = new IdBlocks('things');
  const ids = await Promise.all(Array.from({ length: 600 }, (_, i) =>
    i % 10 === 0 ? nextId(stores[0], 'acct', 'things') : blocks.take(stores[i % 2], 'acct')));
  expect(new Set(ids).size).toBe(600);
  expect(Math.min(...ids)).toBeGreaterThanOrEqual(1);
  // The counter is past every id handed out, so whatever takes from it next gets a new one.
  const { seq } = (await stores[0].counters.findOne({ _id: 'acct:things' }))!;
  expect(Math.max(...ids)).toBeLessThanOrEqual(seq);
  expect(await nextId(stores[1], 'acct', 'things')).toBe(seq + 1);
});

it('hands an id given back out again, and keeps accounts apart', async () => {
  const blocks = new IdBlocks('others');
  const first = await blocks.take(stores[0], 'a1');
  expect(first).toBe(1); // a first block of one: an account that creates now and then loses no ids
  blocks.giveBack(stores[0], 'a1', first);
  expect(await blocks.take(stores[0], 'a1')).toBe(first);
  expect(await blocks.take(stores[0], 'a2')).toBe(1);
  expect(await blocks.take(stores[1], 'a1')).toBe(2); // another process: its own block
});
