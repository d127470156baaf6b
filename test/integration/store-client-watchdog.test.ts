// The store client's watchdog (adapters/store/client-watchdog.ts) against the suite's store,
// reached through a TCP proxy the test can cut. The stuck client the soak saw is made here as it
// looked: the driver's monitor no longer checks the server (stopped through the driver's
// internals: the soak's cause is not reproducible in a test), then the connections in use are
// cut, so the server goes Unknown for good. The watchdog connects the client again; a store that
// is merely down (the monitor still checking and failing) is left to the driver. A store not
// reachable at a client's first connect is waited for (adapters/first-connect.ts).
import { MongoClient, MongoServerSelectionError } from 'mongodb';
import { watchClient, type Watchdog } from '../../adapters/store/client-watchdog';
import { connectStore } from '../../adapters/store/store';
import { firstConnect } from '../../adapters/first-connect';
import { newId } from '../../core/shared/ids';
import { openTcpDoor } from '../support/tcp-door';
import { waitUntil } from '../support/wait';

/** A TCP proxy to the suite's store: `cut()` ends every connection through it, `refuse` turns new ones away. */
async function storeProxy() {
  const target = new URL(process.env.MONGODB_URI!);
  let refusing = false;
  const door = await openTcpDoor(target.hostname, Number(target.port), () => refusing);
  return {
    uri: `mongodb://127.0.0.1:${door.port}/?directConnection=true`,
    cut: door.cut,
    refuse(on: boolean) { refusing = on; },
    close: door.close,
  };
}

/** What the driver keeps per server: its monitor (internal API; used only to stop it as the soak saw it stopped). */
interface ServerInternals { monitor?: { close(): void } }
const serversOf = (client: MongoClient) => (client as unknown as { topology: { s: { servers: Map<string, ServerInternals> } } }).topology.s.servers;

let proxy: Awaited<ReturnType<typeof storeProxy>>;
let client: MongoClient;
let watchdog: Watchdog | undefined;
const warnings: string[] = [];

beforeEach(async () => {
  proxy = await storeProxy();
  client = new MongoClient(proxy.uri, { serverSelectionTimeoutMS: 1000, connectTimeoutMS: 1000, heartbeatFrequencyMS: 500 });
  // Short timeouts make the outages below quick to see; the first connect tries again, as connectStore's does (a busy machine's JVM can take longer than 1 s to answer).
  await firstConnect(() => client.connect(), { retryable: (error) => error instanceof MongoServerSelectionError });
  warnings.length = 0;
});
afterEach(async () => {
  watchdog?.stop();
  await client.close();
  await proxy.close();
});

const collection = () => client.db(`herald_test_${newId().slice(0, 10)}`).collection<{ _id: string }>('watched');

it('connects a client again whose monitor stopped while its server went Unknown', async () => {
  const watched = collection();
  await watched.insertOne({ _id: 'before' });
  // Watched from the start, as connectStore watches its client; patient enough to see the stuck state first.
  watchdog = watchClient(client, { stallMs: 5000, everyMs: 100, logger: { warn: (_details, message) => { warnings.push(message); } } });
  for (const server of serversOf(client).values()) server.monitor?.close();
  proxy.cut();
  // The first read meets the cut connection; the next finds the server Unknown, and nothing checks it again.
  await expect(watched.findOne({ _id: 'before' })).rejects.toThrow();
  await expect(watched.findOne({ _id: 'before' })).rejects.toBeInstanceOf(MongoServerSelectionError);
  expect(watchdog.revivals()).toBe(0);

  // The same collection object, read until the client is back.
  const found = await waitUntil('the client to be connected again', async () => watched.findOne({ _id: 'before' }).catch(() => null));
  expect(found).toEqual({ _id: 'before' });
  expect(watchdog.revivals()).toBe(1);
  expect(warnings).toEqual([expect.stringMatching(/stopped checking its server/)]);
  await watched.insertOne({ _id: 'after' });
  expect(await watched.countDocuments()).toBe(2);
});

it('leaves a client whose store is down to the driver, which finds it again', async () => {
  const watched = collection();
  await watched.insertOne({ _id: 'before' });
  watchdog = watchClient(client, { stallMs: 1000, everyMs: 100 });
  proxy.refuse(true);
  proxy.cut();
  await expect(watched.findOne({ _id: 'before' })).rejects.toBeInstanceOf(MongoServerSelectionError);
  // Down for longer than the watchdog's patience (six checks 500 ms apart), the monitor checking (and failing) all along.
  let failedChecks = 0;
  client.on('serverHeartbeatFailed', () => { failedChecks += 1; });
  await waitUntil('six failed checks', () => failedChecks >= 6);
  expect(watchdog.revivals()).toBe(0);
  proxy.refuse(false);
  expect(await waitUntil('the store again', async () => watched.findOne({ _id: 'before' }).catch(() => null))).toEqual({ _id: 'before' });
  expect(watchdog.revivals()).toBe(0);
});

it('connects again when its first connect after closing fails, once the store is back', async () => {
  const watched = collection();
  await watched.insertOne({ _id: 'before' });
  const failedConnects: string[] = [];
  watchdog = watchClient(client, { stallMs: 1000, everyMs: 100, logger: { warn: (_details, message) => { if (/could not connect/.test(message)) failedConnects.push(message); } } });
  for (const server of serversOf(client).values()) server.monitor?.close();
  proxy.refuse(true);
  proxy.cut();
  await expect(watched.findOne({ _id: 'before' })).rejects.toThrow();
  await waitUntil('a revival whose connect failed', () => failedConnects.length > 0);
  proxy.refuse(false);
  expect(await waitUntil('the client to be connected again', async () => watched.findOne({ _id: 'before' }).catch(() => null))).toEqual({ _id: 'before' });
  expect(watchdog.revivals()).toBe(1);
});

it('starts a store client whose store cannot be reached at first, once it can (a process starting beside a saturated store)', async () => {
  proxy.refuse(true);
  let firstAttemptFailed!: () => void;
  const failed = new Promise<void>((resolve) => { firstAttemptFailed = resolve; });
  const logger = { warn: (_details: object, message: string) => { warnings.push(message); firstAttemptFailed(); } };
  const starting = connectStore(proxy.uri, `herald_test_${newId().slice(0, 10)}`, { logger });
  // The driver's own attempt (5 s of server selection) has given up: connectStore tries again.
  await failed;
  expect(warnings).toEqual([expect.stringMatching(/not reachable yet/)]);
  proxy.refuse(false);
  const store = await starting;
  try {
    const probe = store.db.collection<{ _id: string }>('probe');
    await probe.insertOne({ _id: 'first' });
    expect(await probe.findOne({ _id: 'first' })).toEqual({ _id: 'first' });
  } finally {
    await store.close();
  }
});
