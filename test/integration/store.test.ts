// The embedded store itself: durability across a SIGTERM restart and a SIGKILL on the H2 file,
// and the memory backend used by tests and benchmarks. Runs on its own, without the shared stack.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Collection, MongoClient, MongoClientOptions, MongoServerError, ObjectId } from 'mongodb';
import { EmbeddedStore, startEmbeddedStore } from '../../infra/store';
import { freePort } from '../../infra/ports';

jest.setTimeout(180_000); // the first run fetches the jars with Maven

let tmp: string;
const running: EmbeddedStore[] = [];
const clients: MongoClient[] = [];

beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-store-')); });

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(running.splice(0).map((s) => s.stop()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function connect(uri: string, options: MongoClientOptions = {}): Promise<MongoClient> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, ...options });
  clients.push(client);
  await client.connect();
  return client;
}

async function start(file: string | null): Promise<{ store: EmbeddedStore; client: MongoClient }> {
  const store = await startEmbeddedStore({ file, logFile: path.join(tmp, 'store.log'), shortLived: true });
  running.push(store);
  return { store, client: await connect(store.uri) };
}

async function stop(store: EmbeddedStore, client: MongoClient): Promise<void> {
  await client.close();
  clients.splice(clients.indexOf(client), 1);
  await store.stop();
  running.splice(running.indexOf(store), 1);
}

test('file store keeps documents and unique indexes across a SIGTERM restart', async () => {
  const file = path.join(tmp, 'data', 'store.mv.db');
  const first = await start(file);
  const contacts = first.client.db('herald_test').collection('contacts');
  await contacts.createIndex({ account: 1, email: 1 }, { unique: true, name: 'account_email' });
  await contacts.insertMany([
    { account: 'a1', email: 'ann@example.com', n: 1 },
    { account: 'a1', email: 'bob@example.com', n: 2 },
    { account: 'a2', email: 'ann@example.com', n: 3 },
  ]);
  await expect(contacts.insertOne({ account: 'a1', email: 'ann@example.com' }))
    .rejects.toMatchObject({ code: 11000 });

  await stop(first.store, first.client);
  expect(fs.existsSync(file)).toBe(true);

  const second = await start(file);
  const again = second.client.db('herald_test').collection('contacts');
  const docs = await again.find({}, { projection: { _id: 0 } }).sort({ n: 1 }).toArray();
  expect(docs).toEqual([
    { account: 'a1', email: 'ann@example.com', n: 1 },
    { account: 'a1', email: 'bob@example.com', n: 2 },
    { account: 'a2', email: 'ann@example.com', n: 3 },
  ]);
  const indexes = await again.indexes();
  expect(indexes).toEqual(expect.arrayContaining([
    expect.objectContaining({ name: 'account_email', key: { account: 1, email: 1 }, unique: true }),
  ]));
  // The restored index still enforces uniqueness.
  const err = await again.insertOne({ account: 'a2', email: 'ann@example.com' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(MongoServerError);
  expect((err as MongoServerError).code).toBe(11000);
});

// Every account-scoped lookup here has the shape {_id or the index's fields, account, …}: the
// store must answer it from a unique index (mongo-java-server alone scans the whole collection for
// any query that is not exactly an index's fields) and still return exactly the matching documents.
test.each([['file', true], ['memory', false]])('%s store answers queries that fix a unique index\'s fields with exactly the matching documents', async (_name, durable) => {
  const { client } = await start(durable ? path.join(tmp, 'data', 'store.mv.db') : null);
  const contacts = client.db('herald_test').collection<{ _id: string; account: string; email: string; n: number }>('contacts');
  await contacts.createIndex({ account: 1, email: 1 }, { unique: true });
  await contacts.insertMany(['a1', 'a2'].flatMap((account) => Array.from({ length: 50 }, (_, n) => ({ _id: `${account}-${n}`, account, email: `p${n}@example.com`, n }))));
  const found = async (filter: object) => (await contacts.find(filter, { projection: { _id: 0 } }).toArray()).map((d) => `${d.account}/${d.n}`).sort();

  expect(await found({ account: 'a1', email: { $in: ['p3@example.com', 'p7@example.com', 'p3@example.com', 'nobody@example.com'] } })).toEqual(['a1/3', 'a1/7']);
  expect(await found({ account: { $in: ['a1', 'a2', 'a3'] }, email: { $in: ['p1@example.com', 'p2@example.com'] } })).toEqual(['a1/1', 'a1/2', 'a2/1', 'a2/2']);
  expect(await found({ account: 'a2', email: { $in: [] } })).toEqual([]);
  // More fields than the index's: found through it, then matched against the whole query.
  expect(await found({ _id: { $in: ['a1-4', 'a2-5', 'a1-6', 'a1-99'] }, account: 'a1' })).toEqual(['a1/4', 'a1/6']);
  expect(await found({ _id: 'a2-5', account: 'a1' })).toEqual([]);
  expect(await found({ _id: 'a2-5', account: 'a2', n: { $gt: 4 } })).toEqual(['a2/5']);
  expect(await found({ account: 'a1', email: { $in: ['p8@example.com', 'p9@example.com'] }, n: { $ne: 8 } })).toEqual(['a1/9']);
  expect(await found({ account: 'a1', email: 'p8@example.com', $or: [{ n: 8 }, { n: 9 }] })).toEqual(['a1/8']);
  expect(await found({ account: 'a1', email: 'p8@example.com', $or: [{ n: 1 }] })).toEqual([]);
  // Conditions an index lookup cannot answer fall back to matching every document, as before.
  expect(await found({ account: 'a1', email: { $in: [/^p4\d@/, 'p1@example.com'] } })).toEqual(['a1/1', ...Array.from({ length: 10 }, (_, i) => `a1/${40 + i}`)].sort());
  expect(await found({ account: 'a1', email: { $in: [null, 'p5@example.com'] } })).toEqual(['a1/5']);
  expect(await found({ account: 'a1', email: { $nin: ['p0@example.com'] }, n: { $lt: 2 } })).toEqual(['a1/1']);
  expect(await found({ _id: { $gt: 'a2-47' }, account: 'a2' })).toEqual(['a2/48', 'a2/49', 'a2/5', 'a2/6', 'a2/7', 'a2/8', 'a2/9']);
  // More combinations than the index looks up one by one: still the right answer, by a scan.
  expect(await found({ account: 'a2', email: { $in: Array.from({ length: 20_001 }, (_, n) => `p${n}@example.com`) } })).toHaveLength(50);
  // Within them, looked up one by one, however long the list.
  expect(await found({ account: 'a2', email: { $in: Array.from({ length: 1500 }, (_, n) => `p${n}@example.com`) } })).toHaveLength(50);
  // Updates and deletes find their documents the same way.
  await contacts.updateOne({ _id: 'a1-3', account: 'a1' }, { $set: { n: 300 } });
  await contacts.deleteOne({ _id: 'a1-4', account: 'a2' }); // not a2's: nothing deleted
  expect(await found({ _id: { $in: ['a1-3', 'a1-4'] }, account: 'a1' })).toEqual(['a1/300', 'a1/4']);
});

// A long `$in` of strings is matched by a hash set (infra/store/InMatch.java), the library's matcher
// comparing each value in turn: the answers must stay MongoDB's, arrays, other types and missing
// fields included.
test.each([['file', true], ['memory', false]])('%s store matches a long $in of strings as MongoDB does', async (_name, durable) => {
  const { client } = await start(durable ? path.join(tmp, 'data', 'store.mv.db') : null);
  const things = client.db('herald_test').collection<{ _id: string; tag?: unknown; n: number }>('things');
  await things.insertMany([
    { _id: 'plain', tag: 'red', n: 1 }, { _id: 'array', tag: ['blue', 'x'], n: 2 }, { _id: 'number', tag: 7, n: 3 },
    { _id: 'missing', n: 4 }, { _id: 'other', tag: 'purple', n: 5 }, { _id: 'nested', tag: { in: 'red' }, n: 6 },
  ]);
  const colours = ['red', 'blue', 'green', 'yellow', 'cyan', 'magenta', 'black', 'white', 'grey', 'orange'];
  const found = async (filter: object) => (await things.find(filter).toArray()).map((d) => d._id).sort();
  expect(await found({ tag: { $in: colours } })).toEqual(['array', 'plain']);
  expect(await found({ tag: { $in: colours }, n: { $gt: 1 } })).toEqual(['array']);
  expect(await found({ _id: { $in: [...colours, 'plain', 'number', 'missing'] }, tag: { $in: colours } })).toEqual(['plain']);
  expect(await found({ _id: { $in: [...colours, 'number'] } })).toEqual(['number']);
  expect(await found({ tag: { $in: [...colours, 7] } })).toEqual(['array', 'number', 'plain']); // not all strings: the library's path
  expect(await found({ tag: { $nin: colours } })).toEqual(['missing', 'nested', 'number', 'other']);
  expect(await things.countDocuments({ _id: { $in: colours.map((c) => `${c}-nothing`) } })).toBe(0);
});

test('every acknowledged write survives a SIGKILL of the store right after its reply', async () => {
  const file = path.join(tmp, 'data', 'store.mv.db');
  const { store } = await start(file);
  // Ten connections with all their writes in flight at once: the store groups them into commits.
  const conns = await Promise.all(Array.from({ length: 10 }, () => connect(store.uri, { maxPoolSize: 1 })));
  const writes = Array.from({ length: 250 }, (_, i) => {
    const db = conns[i % conns.length].db('herald_test');
    return i < 200
      ? db.collection<{ _id: string; i: number }>('events').insertOne({ _id: `e${i}`, i })
      : db.collection<{ _id: string; n: number }>('counters').findOneAndUpdate({ _id: `k${i % 5}` }, { $inc: { n: 1 } }, { upsert: true });
  });
  await Promise.all(writes);
  process.kill(store.pid, 'SIGKILL'); // no chance to close the file
  expect(await store.exited).toEqual({ code: null, signal: 'SIGKILL' });
  running.splice(running.indexOf(store), 1);

  const { client } = await start(file);
  const db = client.db('herald_test');
  expect(await db.collection('events').countDocuments()).toBe(200);
  expect(await db.collection('counters').find().sort({ _id: 1 }).toArray())
    .toEqual(['k0', 'k1', 'k2', 'k3', 'k4'].map((_id) => ({ _id, n: 10 })));
});

test('a read never shows a write that a SIGKILL right after it could undo', async () => {
  const file = path.join(tmp, 'data', 'store.mv.db');
  const { store } = await start(file);
  const writer = await connect(store.uri, { maxPoolSize: 5 });
  const reader = await connect(store.uri, { maxPoolSize: 1 });
  const events = writer.db('herald_test').collection<{ _id: string; pad: string }>('events');
  let stopping = false;
  let next = 0;
  // Five writers keep inserting; their replies are beside the point (the store dies under them).
  // Large, incompressible documents make each commit take a while: the window this test aims at.
  const writing = Promise.all(Array.from({ length: 5 }, async () => {
    while (!stopping) {
      await events.insertOne({ _id: `w${next++}`, pad: crypto.randomBytes(200_000).toString('base64') })
        .catch(() => { stopping = true; });
    }
  }));
  await new Promise((r) => setTimeout(r, 500));
  const seen = await reader.db('herald_test').collection('events').countDocuments();
  process.kill(store.pid, 'SIGKILL');
  stopping = true;
  await writing;
  await store.exited;
  running.splice(running.indexOf(store), 1);

  const { client } = await start(file);
  expect(seen).toBeGreaterThan(0);
  expect(await client.db('herald_test').collection('events').countDocuments()).toBeGreaterThanOrEqual(seen);
});

/** A value `levels` deep (each object or array is one level, as MongoDB counts), objects and arrays in turn. */
function nested(levels: number): unknown {
  let value: unknown = { level: 1, leaf: 'x' };
  for (let level = 2; level <= levels; level++) value = level % 2 === 0 ? [value, level] : { level, next: value };
  return value;
}

test('a document 100 levels deep (MongoDB\'s limit) is stored and read back after a restart', async () => {
  const file = path.join(tmp, 'data', 'store.mv.db');
  const first = await start(file);
  const doc = { _id: 'deep', body: nested(99) }; // the document itself is the 100th level
  await first.client.db('herald_test').collection<{ _id: string }>('deep').insertOne(doc);
  await stop(first.store, first.client);

  const second = await start(file);
  expect(await second.client.db('herald_test').collection<{ _id: string }>('deep').findOne({ _id: 'deep' })).toEqual(doc);
});

test('a request nested deeper than 200 levels is refused, and the store carries on', async () => {
  const { client } = await start(path.join(tmp, 'data', 'store.mv.db'));
  const col = client.db('herald_test').collection<{ _id: string; body?: unknown }>('deep');
  await expect(col.insertOne({ _id: 'deep', body: nested(250) })).rejects.toMatchObject({ code: 15 });
  // A long dotted path would build such a document level by level: refused too.
  await expect(col.updateOne({ _id: 'path' }, { $set: { [`a${'.a'.repeat(250)}`]: 1 } }, { upsert: true }))
    .rejects.toMatchObject({ code: 15 });
  await col.insertOne({ _id: 'fine', body: nested(50) });
  expect(await col.find().project({ _id: 1 }).toArray()).toEqual([{ _id: 'fine' }]);
});

test('a second store on the same file is refused with a step the user can take', async () => {
  const file = path.join(tmp, 'data', 'store.mv.db');
  await start(file);
  await expect(startEmbeddedStore({ file, logFile: path.join(tmp, 'second.log'), shortLived: true }))
    .rejects.toThrow(/What to do: another store uses the data folder .*data \(a running Herald/);
});

test('a port taken after it was found free: the store starts on a fresh one, never mistaking the other listener for itself', async () => {
  const squatter = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  const taken = (squatter.address() as net.AddressInfo).port;
  let handedOut = 0;
  const findFreePort = (host?: string) => (handedOut++ === 0 ? Promise.resolve(taken) : freePort(host));
  try {
    const store = await startEmbeddedStore({ file: null, logFile: path.join(tmp, 'store.log'), shortLived: true }, findFreePort);
    running.push(store);
    expect(store.port).not.toBe(taken);
    expect(fs.readFileSync(path.join(tmp, 'store.log'), 'utf8')).toContain(`cannot listen on 127.0.0.1:${taken}`); // the first try's
    const client = await connect(store.uri);
    expect((await client.db('herald_test').collection('things').insertOne({ a: 1 })).acknowledged).toBe(true);
  } finally {
    await new Promise((resolve) => squatter.close(resolve));
  }
});

test('a store whose log cannot be written (its disk full) is still seen ready and serves', async () => {
  // /dev/full refuses every write with ENOSPC, as a full data folder does; the "ready" line comes
  // through a pipe, so the launcher does not wait out its 60 s and stop a store that is listening.
  const store = await startEmbeddedStore({ file: null, logFile: '/dev/full', shortLived: true });
  running.push(store);
  const client = await connect(store.uri);
  expect((await client.db('herald_test').collection('things').insertOne({ a: 1 })).acknowledged).toBe(true);
});

test('a file store refuses to open on a disk without room, with the step to take, and writes nothing', async () => {
  // More free space asked for than any disk has: as a full disk looks to the store.
  const file = path.join(tmp, 'data', 'store.mv.db');
  await expect(startEmbeddedStore({ file, logFile: path.join(tmp, 'store.log'), shortLived: true, minFreeMb: 2 ** 40 }))
    .rejects.toThrow(/What to do: free space on the disk of .*data \(df -h .*\): the store opens its file only with 64 MB free/);
  expect(fs.existsSync(file)).toBe(false);
});

test('memory store starts and accepts an insert', async () => {
  const { client } = await start(null);
  const col = client.db('herald_test').collection('things');
  const { insertedId } = await col.insertOne({ hello: 'world' });
  expect(await col.findOne({ _id: insertedId })).toMatchObject({ hello: 'world' });
  expect(fs.readdirSync(tmp)).toEqual(['store.log']); // nothing on disk but the log
});

// Keyset pages sorted by _id with a limit are read in _id order (infra/store/IdOrder.java) instead
// of matching and sorting the whole collection: the answers must stay exactly MongoDB's.
describe.each([['memory', false], ['file', true]])('keyset pages on the %s store', (_kind, onFile) => {
  interface Row { _id: ObjectId | string; account: string; type: string; n: number }
  // ObjectIds from a few seconds with random tails: inserted out of order, many sharing a time.
  const objectId = () => {
    const bytes = crypto.randomBytes(12);
    bytes.writeUInt32BE(1_700_000_000 + crypto.randomInt(5), 0);
    return new ObjectId(bytes);
  };
  const ids = Array.from({ length: 400 }, objectId);
  const rows: Row[] = ids.map((_id, i) => ({ _id, account: `a${i % 3}`, type: ['open', 'click', 'sent'][i % 5 % 3], n: i }));
  const byId = (a: Row, b: Row) => (String(a._id) < String(b._id) ? -1 : 1); // hex order is ObjectId's byte order
  const ascending = [...rows].sort(byId);
  const key = (r: Row) => String(r._id);

  async function events(): Promise<Collection<Row>> {
    const { client } = await start(onFile ? path.join(tmp, 'store.mv.db') : null);
    const col = client.db('herald_test').collection<Row>('events');
    await col.insertMany(rows.map((r) => ({ ...r })));
    return col;
  }

  test('ascending and descending pages with range bounds, other conditions and skip', async () => {
    const col = await events();
    const low = ascending[40]._id;
    const high = ascending[360]._id;
    const wanted = ascending.filter((r) => r.account === 'a1' && ['open', 'click'].includes(r.type) && key(r) > String(low) && key(r) < String(high));
    // Walk the whole range in pages of 7, as webhook delivery does.
    const walked: string[] = [];
    for (let cursor = low; ;) {
      const page = await col.find({ account: 'a1', _id: { $gt: cursor, $lt: high }, type: { $in: ['open', 'click'] } }).sort({ _id: 1 }).limit(7).toArray();
      walked.push(...page.map(key));
      if (page.length < 7) break;
      cursor = page[page.length - 1]._id as ObjectId;
    }
    expect(walked).toEqual(wanted.map(key));
    // Backwards from a bound, as the activity API does; and with skip.
    const down = await col.find({ account: 'a1', _id: { $lt: high }, type: { $in: ['open', 'click'] } }).sort({ _id: -1 }).limit(9).skip(3).toArray();
    const below = ascending.filter((r) => r.account === 'a1' && ['open', 'click'].includes(r.type) && key(r) < String(high)).reverse();
    expect(down.map(key)).toEqual(below.slice(3, 12).map(key));
    // Inclusive bounds keep the bound's own document; an empty range gives nothing.
    const inclusive = await col.find({ _id: { $gte: low, $lte: high } }).sort({ _id: -1 }).limit(1000).toArray();
    expect(inclusive.map(key)).toEqual(ascending.slice(40, 361).reverse().map(key));
    expect(await col.find({ _id: { $gt: high, $lt: low } }).sort({ _id: 1 }).limit(5).toArray()).toEqual([]);
    // No bound at all: the first and last documents of the whole collection, projected.
    const last = await col.find({ account: 'a0' }, { projection: { n: 1 } }).sort({ _id: -1 }).limit(3).toArray();
    expect(last).toEqual(ascending.filter((r) => r.account === 'a0').reverse().slice(0, 3).map((r) => ({ _id: r._id, n: r.n })));
  });

  test('pages follow deletes and updates, and mixed _id types keep MongoDB\'s type order', async () => {
    const col = await events();
    const gone = ascending.filter((_r, i) => i % 4 === 0).map((r) => r._id);
    await col.deleteMany({ _id: { $in: gone } });
    await col.updateMany({ n: { $lt: 200 } }, { $set: { type: 'sent' } });
    const kept = ascending.filter((_r, i) => i % 4 !== 0).map((r) => (r.n < 200 ? { ...r, type: 'sent' } : r));
    const page = await col.find({ _id: { $gt: ascending[0]._id }, type: 'open' }).sort({ _id: 1 }).limit(25).toArray();
    expect(page).toEqual(kept.filter((r) => r.type === 'open').slice(0, 25));
    // A string _id sorts before every ObjectId (MongoDB's type order), whichever way the store reads.
    await col.insertOne({ _id: 'zzz', account: 'a0', type: 'open', n: -1 });
    expect((await col.find({}).sort({ _id: 1 }).limit(2).toArray()).map(key)).toEqual(['zzz', key(kept[0])]);
    expect((await col.find({}).sort({ _id: -1 }).limit(1).toArray()).map(key)).toEqual([key(kept[kept.length - 1])]);
    await col.deleteOne({ _id: 'zzz' });
    expect((await col.find({}).sort({ _id: 1 }).limit(2).toArray()).map(key)).toEqual(kept.slice(0, 2).map(key));
  });
});
