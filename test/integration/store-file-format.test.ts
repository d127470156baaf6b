// The store's unique indexes compare their keys natively, and documents and index keys are
// written compactly (infra/store/NativeKeyBackend.java, CompactDataType.java). A file written
// before that keeps its index maps in the old order: they are rebuilt once when the store opens
// it, and every lookup and uniqueness check works on them after; its documents, Java-serialised,
// read back as they were. Runs on its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Binary, Decimal128, Double, Int32, Long, MongoClient, MongoServerError, ObjectId, type Collection } from 'mongodb';
import { startEmbeddedStore } from '../../infra/store';

jest.setTimeout(180_000);


let dir: string;
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-keys-')); });
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

type Row = { _id?: string; account: string; [field: string]: unknown };

async function withStore<T>(file: string, logName: string, use: (contacts: Collection<Row>) => Promise<T>, legacyFormat = false): Promise<T> {
  const store = await startEmbeddedStore({ file, logFile: path.join(dir, logName), legacyFormat, shortLived: true });
  const client = new MongoClient(store.uri, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.connect();
    return await use(client.db('herald').collection<Row>('contacts'));
  } finally {
    await client.close();
    await store.stop();
  }
}

const rebuilds = (logName: string) => fs.readFileSync(path.join(dir, logName), 'utf8').split('\n').filter((line) => line.includes('rebuilt index'));

it('rebuilds the index maps of an older file once, then finds and refuses by them', async () => {
  const file = path.join(dir, 'store.mv.db');
  // A file as the store wrote it before: 200 contacts, unique {account, email}.
  await withStore(file, 'legacy.log', async (contacts) => {
    await contacts.createIndex({ account: 1, email: 1 }, { unique: true });
    await contacts.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: `acme:${i + 1}`, account: 'acme', id: i + 1, email: `person${i + 1}@example.com` })));
  }, true);
  await withStore(file, 'first.log', async (contacts) => {
    expect(await contacts.countDocuments({})).toBe(200);
    expect(await contacts.findOne({ account: 'acme', email: 'person123@example.com' })).toMatchObject({ _id: 'acme:123' });
    expect(await contacts.findOne({ _id: 'acme:77' })).toMatchObject({ email: 'person77@example.com' });
    await expect(contacts.insertOne({ _id: 'acme:999', account: 'acme', id: 999, email: 'person5@example.com' })).rejects.toMatchObject({ code: 11000 });
    await expect(contacts.insertOne({ _id: 'acme:5', account: 'acme', id: 5, email: 'fresh@example.com' })).rejects.toBeInstanceOf(MongoServerError);
    await contacts.insertOne({ _id: 'acme:201', account: 'acme', id: 201, email: 'person201@example.com' });
  });
  expect(rebuilds('first.log').sort()).toEqual([
    expect.stringContaining('herald.contacts._index__id_ (200 keys)'),
    expect.stringContaining('herald.contacts._index_account_1_email_1 (200 keys)'),
  ]);

  await withStore(file, 'second.log', async (contacts) => {
    expect(await contacts.countDocuments({})).toBe(201);
    expect(await contacts.findOne({ account: 'acme', email: 'person201@example.com' })).toMatchObject({ _id: 'acme:201' });
    await expect(contacts.insertOne({ _id: 'acme:1000', account: 'acme', id: 1000, email: 'person201@example.com' })).rejects.toMatchObject({ code: 11000 });
  });
  expect(rebuilds('second.log')).toEqual([]);
});

it('keeps MongoDB\'s uniqueness on a new file: numbers of any type, strings by code unit, compound keys', async () => {
  await withStore(path.join(dir, 'new.mv.db'), 'new.log', async (contacts) => {
    await contacts.createIndex({ account: 1, n: 1 }, { unique: true });
    await contacts.insertOne({ account: 'a', n: 1 });
    await expect(contacts.insertOne({ account: 'a', n: 1.0 })).rejects.toMatchObject({ code: 11000 });
    await contacts.insertMany([{ account: 'b', n: 1 }, { account: 'a', n: 'x' }, { account: 'a', n: 'X' }, { account: 'a', n: null }]);
    await expect(contacts.insertOne({ account: 'a', n: 'x' })).rejects.toMatchObject({ code: 11000 });
    expect(await contacts.countDocuments({ account: 'a' })).toBe(4);
    expect(await contacts.findOne({ account: 'a', n: 'X' })).toMatchObject({ n: 'X' });
  });
  expect(rebuilds('new.log')).toEqual([]);
});

it('reads the documents of an older file as they were, and keeps every BSON type across restarts in the new form', async () => {
  const file = path.join(dir, 'types.mv.db');
  const when = new Date('2026-11-23T10:11:12.345Z');
  const typed = (n: number) => ({
    account: 'acme', n, int: new Int32(7), long: Long.fromString('9007199254740993'), double: new Double(1.5), whole: new Double(2),
    decimal: Decimal128.fromString('12.345'), text: 'grüße \u{1F600}', empty: '', none: null, yes: true, no: false, when,
    oid: new ObjectId('65a1b2c3d4e5f60718293a4b'), bytes: new Binary(Buffer.from([0, 1, 2, 255])),
    nested: { deeper: { list: [1, 'two', { three: [3] }], at: when } }, emptyList: [], emptyDoc: {},
  });
  const read = (contacts: Collection<Row>, n: number) => contacts.findOne({ n }, { projection: { _id: 0 }, promoteValues: false });
  let legacy: unknown;
  await withStore(file, 'types-legacy.log', async (contacts) => {
    await contacts.insertOne({ _id: 'old', ...typed(1) });
    legacy = await read(contacts, 1);
  }, true);
  await withStore(file, 'types-first.log', async (contacts) => {
    expect(await read(contacts, 1)).toEqual(legacy); // written Java-serialised, read as it was
    await contacts.insertOne({ _id: 'new', ...typed(2) });
    await contacts.updateOne({ _id: 'old' }, { $set: { touched: 1 } }); // rewritten in the new form
    expect({ ...(await read(contacts, 2)), n: new Int32(1) }).toEqual(legacy);
  });
  await withStore(file, 'types-second.log', async (contacts) => {
    expect({ ...(await read(contacts, 2)), n: new Int32(1) }).toEqual(legacy);
    expect(await read(contacts, 1)).toEqual({ ...(legacy as object), touched: new Int32(1) });
    expect(await contacts.countDocuments({ when })).toBe(2);
  });
});
