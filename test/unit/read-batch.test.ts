// Lookups asked for together go out as one query; nothing outlives it.
import { ReadBatch } from '../../adapters/batching/read-batch';

/** A batch whose loader records each query and answers key → key * 10 (keys above 99 do not exist). */
function recorded() {
  const queries: number[][] = [];
  const batch = new ReadBatch<number, number>(async (keys) => {
    queries.push(keys);
    return new Map(keys.filter((k) => k < 100).map((k) => [k, k * 10]));
  });
  return { batch, queries };
}

it('answers lookups asked for in the same turn with one query, each key once', async () => {
  const { batch, queries } = recorded();
  expect(await Promise.all([batch.get(1), batch.get(2), batch.get(1), batch.get(500)])).toEqual([10, 20, 10, undefined]);
  expect(queries).toEqual([[1, 2, 500]]);
});

it('reads again for a lookup asked for after the query went out: no value outlives its query', async () => {
  const { batch, queries } = recorded();
  const first = batch.get(1);
  await new Promise((resolve) => setImmediate(resolve)); // the query has gone out
  const second = batch.get(1);
  expect(await Promise.all([first, second])).toEqual([10, 10]);
  expect(queries).toEqual([[1], [1]]);
});

it('fails every lookup of a failed query, and the next query is a new one', async () => {
  let fail = true;
  const batch = new ReadBatch<string, string>(async (keys) => {
    if (fail) throw new Error('store down');
    return new Map(keys.map((k) => [k, k]));
  });
  const answers = await Promise.allSettled([batch.get('a'), batch.get('b')]);
  expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
  fail = false;
  expect(await batch.get('a')).toBe('a');
});

it('sends a batch of 500 keys at once, without waiting for the end of the turn', async () => {
  const { batch, queries } = recorded();
  const lookups = Array.from({ length: 501 }, (_, i) => batch.get(i));
  expect(queries).toHaveLength(1); // the 500th key sent the first query right away
  await Promise.all(lookups);
  expect(queries.map((q) => q.length)).toEqual([500, 1]);
});

it('reads again for a key asked for after a full batch went out at once', async () => {
  const { batch, queries } = recorded();
  const lookups = Array.from({ length: 500 }, (_, i) => batch.get(i));
  const again = batch.get(7); // the first batch is in flight: this one is a new query
  await Promise.all([...lookups, again]);
  expect(queries.map((q) => q.length)).toEqual([500, 1]);
  expect(queries[1]).toEqual([7]);
});
