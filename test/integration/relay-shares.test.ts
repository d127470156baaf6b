// A relay's limits across worker processes (adapters/relay/relay-shares.ts): two routers, as two
// worker processes would hold them, each with its leases in the suite's store, send to one relay
// whose file caps it at 2 connections and 40 messages a second: the relay never sees more, and
// once one process is gone the other takes the whole of both.
import { createRelayRouter, type RelayRouter } from '../../adapters/relay/router';
import { IDLE_SHARE, shareOf, shareRelays, RelayStatus, type RelayShares } from '../../adapters/relay/relay-shares';
import type { RelayDefinition } from '../../adapters/relay/routes';
import { connectStore, type Store } from '../../adapters/store/store';
import { newId } from '../../core/shared/ids';
import type { RelayMessage } from '../../adapters/relay/transport';
import { startSmtpSink } from '../support/smtp-sink';
import { dropDatabase, suiteMongodbUri } from '../support/herald';

const database = `herald_shares_${newId().slice(0, 8)}`;
let store: Store;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
const routers: RelayRouter[] = [];
const shares: RelayShares[] = [];

beforeAll(async () => {
  store = await connectStore(suiteMongodbUri(), database);
  sink = await startSmtpSink({ delayMs: 10 });
});
afterAll(async () => {
  for (const router of routers) router.close();
  await sink.kill();
  await store.close();
  await dropDatabase(database);
});

/** A worker process's router and leases (its first tick done, as a worker's before it sends). */
async function workerProcess(relays: RelayDefinition[]) {
  const status = new RelayStatus(relays);
  const router = createRelayRouter(relays, { outcome: (relay, outcome) => status.counted(relay, outcome) });
  const leases = shareRelays({ store, relays, status, target: router }, { everyMs: 60_000, leaseMs: 60_000 }); // renewed by the test
  routers.push(router);
  shares.push(leases);
  await leases.tick();
  return { router, leases };
}

const message = (recipient: string): RelayMessage => ({
  envelope: { from: 'bounce@bounces.example.com', to: [recipient] },
  raw: Buffer.from(`From: shop@example.com\r\nTo: ${recipient}\r\nSubject: hi\r\n\r\nhello\r\n`),
  route: { stream: 'campaign', account: 'acme', sender: 'shop@example.com', recipient },
});

it('splits a relay\'s rate evenly and its connections as evenly as whole ones allow', () => {
  const relay = { name: 'bulk', url: 'smtp://x:25', ratePerSecond: 200, maxConnections: 5 };
  expect([0, 1].map((rank) => shareOf(relay, rank, 2))).toEqual([{ ratePerSecond: 100, maxConnections: 3 }, { ratePerSecond: 100, maxConnections: 2 }]);
  expect(shareOf({ name: 'main', url: 'smtp://x:25' }, 0, 1)).toEqual({ ratePerSecond: undefined, maxConnections: 5 });
  expect(shareOf({ ...relay, maxConnections: 1 }, 1, 2)).toEqual({ ratePerSecond: 100, maxConnections: 0 }); // past the cap: its messages wait
  // One of three sending: it gets the rate but the idle ones' trickles.
  expect(shareOf(relay, 0, 3, 1, true).ratePerSecond).toBeCloseTo(200 * (1 - 2 * IDLE_SHARE));
  expect(shareOf(relay, 1, 3, 1, false).ratePerSecond).toBeCloseTo(200 * IDLE_SHARE);
});

it('holds a relay\'s connections and rate across two worker processes, and gives the whole back when one is gone', async () => {
  const relays: RelayDefinition[] = [{ name: 'bulk', url: sink.url, ratePerSecond: 40, maxConnections: 2 }];
  const [one, two] = [await workerProcess(relays), await workerProcess(relays)];
  // Each renewal sees the other's: the first took the whole rate alone, so the second waits for
  // the first's next renewal to give half back (never more than the rate in all).
  expect(two.leases.shareOf('bulk')!.ratePerSecond).toBe(0);
  await one.leases.tick();
  await two.leases.tick();
  expect([one.leases.shareOf('bulk'), two.leases.shareOf('bulk')]).toEqual([{ ratePerSecond: 20, maxConnections: 1 }, { ratePerSecond: 20, maxConnections: 1 }]);
  const sends = (router: RelayRouter, prefix: string) => Promise.all(Array.from({ length: 40 }, (_, i) => router.sendMail(message(`${prefix}${i}@example.net`))));
  // Renewed while they send (as every second in a worker): both active, an even split still.
  const renewing = setInterval(() => { void one.leases.tick(); void two.leases.tick(); }, 200);
  const startedAt = performance.now();
  await Promise.all([sends(one.router, 'a'), sends(two.router, 'b')]).finally(() => clearInterval(renewing));
  const tookMs = performance.now() - startedAt;
  expect(sink.received).toHaveLength(80);
  expect(sink.mostOpenAtOnce).toBeLessThanOrEqual(2);
  // Each process at 20 a second, not 40: 40 messages each take (40 - 1 of burst) / 20 s at least
  // (a slower machine only makes it longer; the spacing itself: test/unit/rate-limit.test.ts).
  expect(tookMs).toBeGreaterThanOrEqual(1900);

  // Only the first sends now: the second's renewals show it idle, and the first, renewing after
  // a send, gets the rate but the second's trickle; the second keeps the trickle.
  await two.leases.tick();
  await two.leases.tick(); // nothing sent since the one before: idle
  await one.router.sendMail(message('solo1@example.net'));
  await one.leases.tick(); // active: it takes what the second's lease leaves
  await two.leases.tick(); // idle beside an active one: the trickle, the rest given back
  await one.router.sendMail(message('solo2@example.net'));
  await one.leases.tick(); // active still: all but the second's trickle
  expect(one.leases.shareOf('bulk')!.ratePerSecond).toBeCloseTo(40 * (1 - IDLE_SHARE));
  expect(two.leases.shareOf('bulk')!.ratePerSecond).toBeCloseTo(40 * IDLE_SHARE);

  const live = async () => (await store.relayLeases.find({ relay: 'bulk', expiresAt: { $gt: new Date() } }).toArray()).map((lease) => lease.process).sort();
  expect(await live()).toEqual([one.leases.process, two.leases.process].sort());
  await two.leases.stop();
  two.router.close();
  await one.leases.tick();
  expect(await live()).toEqual([one.leases.process]);
  expect(one.leases.shareOf('bulk')).toEqual({ ratePerSecond: 40, maxConnections: 2 });
  const before = sink.received.length;
  await Promise.all(Array.from({ length: 4 }, (_, i) => one.router.sendMail(message(`c${i}@example.net`))));
  expect(sink.received.length - before).toBe(4);
  const lease = await store.relayLeases.findOne({ process: one.leases.process });
  expect(lease).toMatchObject({ relay: 'bulk', up: true });
}, 60_000);

it('never gives out more than the rate when idle processes turn active together: a process raises its share only once its lease has said it is active', async () => {
  const relays: RelayDefinition[] = [{ name: 'together', url: sink.url, ratePerSecond: 100, maxConnections: 3 }];
  const [a, b, c] = [await workerProcess(relays), await workerProcess(relays), await workerProcess(relays)];
  const send = (worker: typeof a, recipient: string) => worker.router.sendMail(message(recipient));
  const rates = () => [a, b].map((worker) => worker.leases.shareOf('together')!.ratePerSecond!);
  for (let round = 0; round < 2; round++) for (const worker of [a, b, c]) await worker.leases.tick(); // all idle: a third each
  // The third sends alone for a while: the other two keep a trickle each.
  for (let round = 0; round < 3; round++) {
    await send(c, `c${round}@example.net`);
    for (const worker of [c, a, b]) await worker.leases.tick();
  }
  expect(rates()).toEqual([100 * IDLE_SHARE, 100 * IDLE_SHARE]);
  // It stops; the two others both start sending, and renew at the same moment, round after round.
  await c.leases.stop();
  const sums: number[] = [];
  for (let round = 0; round < 4; round++) {
    await Promise.all([send(a, `a${round}@example.net`), send(b, `b${round}@example.net`)]);
    await Promise.all([a.leases.tick(), b.leases.tick()]);
    sums.push(rates()[0] + rates()[1]);
  }
  for (const sum of sums) expect(sum).toBeLessThanOrEqual(100 + 1e-9);
  expect(rates()).toEqual([expect.closeTo(50, 5), expect.closeTo(50, 5)]); // and they do get it, half each
});
