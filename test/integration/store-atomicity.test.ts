// The embedded store answers each request from a consistent snapshot: 20 clients incrementing
// one counter with findOneAndUpdate each get their own value (per-account ids depend on it).
// The snapshot's lock is per collection: a long read of one leaves writes to another running.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { nextId } from '../../adapters/store/counters';
import { connectStore } from '../../adapters/store/store';
import { startEmbeddedStore } from '../../infra/store';

jest.setTimeout(120_000);

it.each([['memory', false], ['file with durable commits', true]])('gives every concurrent nextId its own id (%s)', async (_label, onFile) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-atomic-'));
  const embedded = await startEmbeddedStore({ file: onFile ? path.join(dir, 'store.mv.db') : null, logFile: path.join(dir, 'store.log'), shortLived: true });
  const store = await connectStore(embedded.uri, 'atomicity');
  try {
    const ids: number[] = [];
    let started = 0;
    await Promise.all(Array.from({ length: 20 }, async () => {
      while (started < 1000) {
        started += 1;
        ids.push(await nextId(store, 'acct', 'things'));
      }
    }));
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
    expect(Math.max(...ids)).toBe(1000);
  } finally {
    await store.close();
    await embedded.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('runs writes to one collection while a long read of another is under way', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-atomic-'));
  const embedded = await startEmbeddedStore({ file: null, logFile: path.join(dir, 'store.log'), shortLived: true });
  const client = await MongoClient.connect(embedded.uri);
  try {
    const db = client.db('concurrency');
    const big = db.collection<{ n: number; group: number; text: string }>('big');
    for (let from = 0; from < 60_000; from += 10_000) {
      await big.insertMany(Array.from({ length: 10_000 }, (_, i) => ({ n: from + i, group: (from + i) % 97, text: `document ${from + i}` })));
    }
    const other = db.collection<{ n: number }>('other');
    await other.insertOne({ n: -1 }); // the collection exists before the race
    // Writes to `other`, one after another, for as long as the read of `big` runs: with one lock
    // for the whole store, at most the first slipped in before the read and the rest waited for it.
    let reading = true;
    const read = big.aggregate([{ $sort: { text: -1 } }, { $group: { _id: '$group', count: { $sum: 1 } } }]).toArray()
      .finally(() => { reading = false; });
    let writtenDuringRead = 0;
    while (reading) {
      await other.insertOne({ n: writtenDuringRead });
      if (reading) writtenDuringRead += 1;
    }
    expect(await read).toHaveLength(97);
    expect(writtenDuringRead).toBeGreaterThanOrEqual(5);
  } finally {
    await client.close();
    await embedded.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
