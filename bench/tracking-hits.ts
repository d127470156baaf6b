// Tracking hits per second, durable (each answered only once its events are stored), beside the
// embedded store's own batched insert rate of event-sized documents measured in the same run:
// the API on its own thread (bench/api-thread.ts, client addresses from X-Forwarded-For), many
// keep-alive clients on another (bench/tracking-load-thread.ts) GETting open pixels and click
// links of messages in the send ledger, from a mix of User-Agents and public addresses (so the
// UA parse, the GeoIP lookup and the mail-proxy rule all run). Then the parts of a hit timed on
// their own, in this thread, to say where a hit's time goes.
import fs from 'node:fs';
import path from 'node:path';
import { createAccount } from '../core/accounts/accounts';
import { buildEvent, eventOfSentMail } from '../core/tracking/events';
import { newId } from '../core/shared/ids';
import { mailIdOf } from '../core/sending/plan';
import { connectStore, type EventDoc, type LedgerRowDoc, type SendRequestDoc, type Store } from '../adapters/store/store';
import { placeOf } from '../core/tracking/geoip';
import { clickFields, clientFields } from '../core/tracking/hit-fields';
import { deviceOf } from '../core/tracking/user-agent';
import { trackingSecret } from '../core/content/tracking/secret';
import { linkPart, linkSignature, messagePart, messageToken, verifyTrackingToken } from '../core/content/tracking/token';
import { startEmbeddedStore } from '../infra/store';
import { startApiThread } from './api-thread';
import { percentile, perSecond, round } from './stats';
import { log, Teardown } from './support';
import { runHitLoad } from './tracking-load-thread';
import { haveWrk, runWrk } from './wrk-load';

const DATABASE = 'herald_bench_tracking';
const MESSAGES = 5000;
/** wrk (C) loads the API when installed (apt-get install wrk): a Node load generator takes a core of its own. */
const WRK = haveWrk() && process.env.HERALD_BENCH_LOADGEN !== 'node';
/**
 * API instances, each a thread of its own (as separate API processes would be), the clients
 * spread evenly over them; wrk leaves a core's worth for a second one.
 */
const API_THREADS = Number(process.env.HERALD_BENCH_API_THREADS ?? (WRK ? 2 : 1));
/** Clients hitting at once, each over its own keep-alive connection. */
const CONCURRENCY = 256;
const WARMUP_MS = 5000;
const MEASURE_MS = 10_000;
/** The store reference: insertMany of event-sized documents, this many per call, one call at a time (as the EventWriter writes). */
const REFERENCE_BATCHES = [100, 500];
const REFERENCE_MS = 4000;
/** GET /healthz by the same clients: what the HTTP stack (Koa and the shared middleware) allows any route. */
const FLOOR_MS = 4000;

export const USER_AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.60 Safari/537.36',
  'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)',
];

/** Public addresses spread over the IPv4 space (and a few IPv6), so GeoIP answers vary. */
export function clientAddresses(count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i % 10 === 9
    ? `2a01:${(i * 7919) % 0xffff}::${i % 0xffff}`
    : `${20 + (i * 37) % 200}.${(i * 13) % 256}.${(i * 101) % 256}.${1 + (i % 250)}`));
}

/** What a load run gives, whichever generator made it. */
interface LoadSummary { answered: number; durationMs: number; p50Ms: number; p99Ms: number; errors: number; firstError?: string; statuses?: Record<string, number> }

interface Fixture { account: string; paths: string[]; sampleEvent: EventDoc }

/** MESSAGES sent messages in the ledger (with their stored requests), and a pixel and a click path of each. */
export async function fixture(store: Store): Promise<Fixture> {
  const { account } = await createAccount(store, `benchtrack${newId().slice(0, 6).replace(/[^a-z0-9]/g, '')}`);
  const secret = await trackingSecret(store);
  const requestId = newId();
  const batchId = `${account}_transactional_${requestId}`;
  const now = new Date();
  const request: SendRequestDoc = { _id: requestId, account, source: 'http', payload: '{}', batchId, acceptedAt: now };
  await store.sendRequests.insertOne(request);
  const rows: LedgerRowDoc[] = [];
  const paths: string[] = [];
  for (let index = 0; index < MESSAGES; index++) {
    const mailId = mailIdOf(account, requestId, index);
    const email = `reader${index}@example.net`;
    const event = buildEvent('track.mail.sent', {
      account, batch_id: batchId, mail_id: mailId, email, sent_timestamp: now, tags: ['bench'], custom_args: { n: String(index) }, mta: 'herald.bench',
    }, now, 'sent');
    rows.push({ ...event, _outcome_of: mailId, _ledger: { requestId, messageId: `<${mailId}@herald.bench>`, status: 'sent', relayResponse: '250 OK', sentAt: now } });
    const message = messagePart({ account, requestId, index });
    const link = linkPart({ linkId: index % 5, target: `https://shop.example/p/${index}?utm_source=mail`, url: `https://shop.example/p/${index}`, interests: [] });
    paths.push(`/t/o/${messageToken(secret, 'o', message)}`);
    if (index % 3 === 0) paths.push(`/t/c/${messageToken(secret, 'c', message)}.${link}.${linkSignature(secret, requestId, link)}`);
  }
  for (let at = 0; at < rows.length; at += 1000) await store.ledger.insertMany(rows.slice(at, at + 1000));
  // Spread each message's hits over the run (the paths list is walked round-robin).
  paths.sort(() => Math.random() - 0.5);
  return { account, paths, sampleEvent: rows[0] };
}

/** An event as a click stores it (~1 KB): the reference inserts documents of this size. */
function eventSized(sent: EventDoc, ip: string): EventDoc {
  const ua = USER_AGENTS[1];
  const client = clientFields(ua, ip, deviceOf(ua), { country: 'US', city: 'Mountain View' });
  return eventOfSentMail(sent, 'track.mail.clicked', new Date(), undefined, clickFields(client, { linkId: 3, target: 'https://shop.example/p/1', url: 'https://shop.example/p/1', interests: [] }, '1234'));
}

/** insertMany of `batch` event-sized documents, one call at a time, for REFERENCE_MS, into an events collection with the real indexes. */
async function storeBatchedInserts(uri: string, sent: EventDoc, batch: number): Promise<number> {
  const ref = await connectStore(uri, `${DATABASE}_ref_${batch}`);
  try {
    const started = performance.now();
    let inserted = 0;
    while (performance.now() - started < REFERENCE_MS) {
      const docs = Array.from({ length: batch }, (_, i) => eventSized(sent, `20.${i % 256}.1.1`));
      await ref.events.insertMany(docs, { ordered: false });
      inserted += batch;
    }
    const rate = perSecond(inserted, performance.now() - started);
    await ref.db.dropDatabase();
    return rate;
  } finally {
    await ref.close();
  }
}

/** CPU time (ms) of each thread of this process, by thread id (Linux: /proc; empty elsewhere). */
function threadCpuMs(): Map<string, number> {
  try {
    return new Map(fs.readdirSync('/proc/self/task').map((tid) => [tid, cpuMsOf(`/proc/self/task/${tid}/stat`)]));
  } catch {
    return new Map();
  }
}

/** utime + stime of a /proc stat file, in ms (clock ticks of 10 ms); NaN when unreadable. */
function cpuMsOf(statFile: string): number {
  try {
    const fields = fs.readFileSync(statFile, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** Microseconds per call of `fn`, over `count` calls. */
function microseconds(count: number, fn: (i: number) => unknown): number {
  const started = performance.now();
  for (let i = 0; i < count; i++) fn(i);
  return round(((performance.now() - started) * 1000) / count, 2);
}

/** The parts of a hit on their own (this thread): where a hit's time goes besides Koa and the store. */
async function hitParts(store: Store, fixtureOf: Fixture): Promise<Record<string, number>> {
  const secret = await trackingSecret(store);
  const tokens = fixtureOf.paths.slice(0, 1000).map((p) => p.split('/').pop()!);
  const ips = clientAddresses(1000);
  await Promise.all(['1.1.1.1', '2a01::1'].map(placeOf)); // the databases read in
  const places = performance.now();
  for (let i = 0; i < 20_000; i++) await placeOf(ips[i % ips.length]);
  const geoipLookupUs = round(((performance.now() - places) * 1000) / 20_000, 2);
  return {
    token_verify_us: microseconds(20_000, (i) => verifyTrackingToken(secret, tokens[i % tokens.length].split('.').length === 4 ? 'c' : 'o', tokens[i % tokens.length])),
    ua_parse_uncached_us: microseconds(2000, (i) => deviceOf(`${USER_AGENTS[i % USER_AGENTS.length]} bench/${i}`)),
    ua_parse_cached_us: microseconds(50_000, (i) => deviceOf(USER_AGENTS[i % USER_AGENTS.length])),
    geoip_lookup_us: geoipLookupUs,
    event_build_us: microseconds(20_000, (i) => eventSized(fixtureOf.sampleEvent, ips[i % ips.length])),
  };
}

export async function runTrackingHits(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const dir = teardown.tempDir('herald-bench-tracking-');
    log('tracking-hits: starting the embedded store (memory)');
    const embedded = await startEmbeddedStore({ file: null, logFile: path.join(dir, 'store.log') });
    teardown.defer('store', () => embedded.stop());
    const store = await connectStore(embedded.uri, DATABASE);
    teardown.defer('store client', () => store.close());
    log(`tracking-hits: ${MESSAGES} sent messages in the ledger`);
    const fix = await fixture(store);

    // The API thread reads the client address from X-Forwarded-For (HERALD_TRUST_PROXY), as behind a proxy.
    const trustBefore = process.env.HERALD_TRUST_PROXY;
    process.env.HERALD_TRUST_PROXY = '1';
    const threadsBefore = new Set(threadCpuMs().keys());
    const apiBases: string[] = [];
    for (let i = 0; i < API_THREADS; i++) apiBases.push(await startApiThread(embedded.uri, DATABASE, teardown));
    // The API threads' ids: the threads that appeared (a worker also starts none of its own).
    const apiThreads = [...threadCpuMs().keys()].filter((tid) => !threadsBefore.has(tid));
    if (trustBefore === undefined) delete process.env.HERALD_TRUST_PROXY;
    else process.env.HERALD_TRUST_PROXY = trustBefore;

    const load = { apiBases, paths: fix.paths, userAgents: USER_AGENTS, ips: clientAddresses(5000), concurrency: CONCURRENCY, count: 1e9 };
    const hitLoad = async (paths: string[], durationMs: number): Promise<LoadSummary> => {
      if (WRK) {
        // One wrk per API instance (as a load balancer would spread connections), run side by side.
        const runs = await Promise.all(apiBases.map((base) => runWrk({
          base, paths, userAgents: USER_AGENTS, ips: load.ips, connections: Math.ceil(CONCURRENCY / apiBases.length), durationMs, dir,
        })));
        return {
          answered: runs.reduce((sum, r) => sum + r.requests, 0), durationMs: Math.max(...runs.map((r) => r.durationMs)),
          p50Ms: Math.max(...runs.map((r) => r.p50Ms)), p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
          errors: runs.reduce((sum, r) => sum + r.errors, 0), firstError: runs.find((r) => r.firstError)?.firstError,
        };
      }
      const run = await runHitLoad({ ...load, paths, durationMs });
      return {
        answered: run.results.length, durationMs: run.durationMs, p50Ms: percentile(run.results, 50), p99Ms: percentile(run.results, 99),
        errors: run.errors, firstError: run.firstError, statuses: run.statuses,
      };
    };
    log(`tracking-hits: warm-up (${WARMUP_MS / 1000} s, load from ${WRK ? 'wrk' : 'a Node thread'})`);
    const warm = await hitLoad(fix.paths, WARMUP_MS);
    if (warm.errors > 0) throw new Error(`warm-up: ${warm.errors} errors, first: ${warm.firstError}`);
    log('tracking-hits: store reference (insertMany of event-sized documents)');
    const reference: Record<string, number> = {};
    for (const batch of REFERENCE_BATCHES) reference[`batch_${batch}`] = await storeBatchedInserts(embedded.uri, fix.sampleEvent, batch);
    const storeRate = Math.max(...Object.values(reference));

    log('tracking-hits: the HTTP stack alone, GET /healthz with the same clients (the floor of any route)');
    const floor = await hitLoad(['/healthz'], FLOOR_MS);

    const eventsBefore = await store.events.countDocuments({ account: fix.account });
    log(`tracking-hits: ${CONCURRENCY} clients for ${MEASURE_MS / 1000} s`);
    const [threads0, process0, store0] = [threadCpuMs(), process.cpuUsage(), cpuMsOf(`/proc/${embedded.pid}/stat`)];
    const run = await hitLoad(fix.paths, MEASURE_MS);
    const [threads1, process1, store1] = [threadCpuMs(), process.cpuUsage(process0), cpuMsOf(`/proc/${embedded.pid}/stat`)];
    await new Promise((resolve) => setTimeout(resolve, 1000)); // hits in flight at the deadline finish
    const eventsAfter = await store.events.countDocuments({ account: fix.account });
    const hitsPerS = perSecond(run.answered, run.durationMs);
    const perHitUs = (ms: number) => round((ms * 1000) / run.answered);
    const apiCpuMs = apiThreads.reduce((sum, tid) => sum + (threads1.get(tid) ?? NaN) - (threads0.get(tid) ?? NaN), 0);
    const goal = Math.min(10_000, 0.8 * storeRate);

    log('tracking-hits: the parts of a hit, timed alone');
    const parts = await hitParts(store, fix);
    return {
      scenario: 'tracking-hits',
      api_threads: API_THREADS,
      concurrency: CONCURRENCY,
      hits_per_s: hitsPerS,
      load_generator: WRK ? 'wrk' : 'node',
      p50_ms: round(run.p50Ms, 2),
      p99_ms: round(run.p99Ms, 2),
      errors: run.errors,
      ...(run.firstError ? { first_error: run.firstError } : {}),
      ...(run.statuses ? { statuses: run.statuses } : {}),
      events_stored_during_run: eventsAfter - eventsBefore,
      store_batched_inserts_per_s: reference,
      goal_hits_per_s: round(goal),
      ratio_to_store_batched_inserts: round(hitsPerS / storeRate, 2),
      goal_met: hitsPerS >= goal,
      healthz_per_s: perSecond(floor.answered, floor.durationMs),
      cpu_us_per_hit: {
        api_threads: perHitUs(apiCpuMs),
        node_process: perHitUs((process1.user + process1.system) / 1000),
        store: perHitUs(store1 - store0),
      },
      api_cores_busy: round(apiCpuMs / run.durationMs, 2),
      hit_parts: parts,
      notes: `memory store; ${MESSAGES} sent messages; paths ~75% open pixels, ~25% clicks, round-robin over the messages in random order; ` +
        `${USER_AGENTS.length} User-Agents (one a Gmail proxy: no device or GeoIP lookup on its opens) and 5000 public addresses (10% IPv6) in X-Forwarded-For; ` +
        `${API_THREADS} API thread(s) (bench/api-thread.ts; HERALD_BENCH_API_THREADS), ${CONCURRENCY} keep-alive connections from ${WRK ? 'wrk (one per API thread; HERALD_BENCH_LOADGEN=node for the Node load thread)' : 'a Node thread (wrk not installed)'}; warm-up ${WARMUP_MS / 1000} s, run ${MEASURE_MS / 1000} s; ` +
        'each 200/302 answered only after its events were stored (one grouped insertMany per turn: core/tracking/event-writer.ts); ' +
        `store reference: insertMany of ~1 KB click events into an events collection with the real indexes, one call at a time, ${REFERENCE_MS / 1000} s per batch size; ` +
        'goal: 10,000 hits/s, or 80% of the best reference when that is lower; healthz_per_s: the same clients on GET /healthz, the HTTP stack\'s floor; ' +
        'cpu_us_per_hit: CPU time during the run per hit answered (Linux /proc): the API thread(s), this whole process (API, load generator, GC helpers), the store process; ' +
        'hit_parts: each part of a hit timed alone in the bench thread',
    };
  } finally {
    await teardown.run();
  }
}
