// The account API's contacts on the embedded store as `npm start` runs it (H2 file, every write
// durable before its reply): contact upserts over HTTP (POST /v2/{account}/lists/{id}/contacts),
// beside the store's own single-document upsert rate measured on the same store in the same run,
// at the same concurrency, with both warmed up; then one filtered listing page with 100k contacts.
import path from 'node:path';
import { Pool } from 'undici';
import { createAccount } from '../core/accounts/accounts';
import { planUpsert } from '../core/contacts/changes';
import { connectStore, type Store } from '../adapters/store/store';
import { startEmbeddedStore } from '../infra/store';
import { startApiThread } from './api-thread';
import { fillContacts } from './contacts-fill';
import { percentile, perSecond, round } from './stats';
import { log, runPool, Teardown } from './support';

const UPSERTS = 6000;
const CONCURRENCY = 20;
/** Time-boxed phases: the store reference (and its warm-up), and the HTTP warm-up. */
const PHASE_MS = 4000;
const HTTP_WARMUP_MS = 20_000;
const BIG_ACCOUNT = 100_000;
const PAGE_REQUESTS = 30;
const DATABASE = 'herald_bench_contacts';

interface Rate { per_s: number; p50_ms: number; p99_ms: number; errors: number; first_error?: string }

/** `count` operations (or as many as fit in `ms`), CONCURRENCY in flight: rate and latencies. */
async function measure(count: number, ms: number, op: (i: number) => Promise<unknown>): Promise<Rate> {
  const started = performance.now();
  const pool = await runPool(count, CONCURRENCY, ms, async (i) => {
    const t0 = performance.now();
    await op(i);
    return performance.now() - t0;
  });
  return {
    per_s: perSecond(pool.results.length, performance.now() - started),
    p50_ms: round(percentile(pool.results, 50)),
    p99_ms: round(percentile(pool.results, 99)),
    errors: pool.errors,
    ...(pool.firstError ? { first_error: pool.firstError } : {}),
  };
}

/** The reference: findOneAndUpdate $inc upserts over 1000 small documents, for PHASE_MS. */
function storeUpserts(store: Store): Promise<Rate> {
  const counters = store.db.collection<{ _id: string; n: number }>('bench_upserts');
  return measure(1e9, PHASE_MS, (i) => counters.findOneAndUpdate({ _id: `k${i % 1000}` }, { $inc: { n: 1 } }, { upsert: true }));
}

/** The very write each HTTP upsert makes (planUpsert), sent directly: new contacts of another account. */
function storeContactUpserts(store: Store): Promise<Rate> {
  let next = 0;
  return measure(UPSERTS, 60_000, () => {
    const id = next++;
    const { filter, update } = planUpsert('benchref', id + 1, 1, { email: `ref${id}@example.com`, firstName: `R${id}`, lastName: 'creates' }, 'MANUAL', new Date());
    return store.contacts.findOneAndUpdate(filter, update, { upsert: true, returnDocument: 'after' });
  });
}

export async function runContactsApi(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const dir = teardown.tempDir('herald-bench-contacts-');
    log('contacts-api: starting the embedded store (H2 file, durable commits)');
    const embedded = await startEmbeddedStore({ file: path.join(dir, 'store.mv.db'), logFile: path.join(dir, 'store.log') });
    teardown.defer('store', () => embedded.stop());
    const store = await connectStore(embedded.uri, DATABASE);
    teardown.defer('store client', () => store.close());
    const base = await startApiThread(embedded.uri, DATABASE, teardown);
    const { account, apiKey } = await createAccount(store, 'benchcontacts');
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    // undici's own client, one keep-alive connection per request in flight: the load generator
    // shares the machine's two cores with the API and the store, and fetch costs it about twice as much.
    const client = new Pool(base, { connections: CONCURRENCY });
    teardown.defer('http client', () => client.close());
    const call = async (method: 'GET' | 'POST', route: string, body?: unknown) => {
      const t0 = performance.now();
      const res = await client.request({ method, path: `/v2/${account}${route}`, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
      return performance.now() - t0;
    };
    await call('POST', '/lists', { name: 'Customers' });
    await call('POST', '/lists', { name: 'Newsletter' });
    const upsert = (list: number, email: string, lastName: string) => call('POST', `/lists/${list}/contacts`, { email, firstName: 'P', lastName });

    // The store's JIT compiler takes tens of seconds to settle (measured: its C2 compiler thread took
    // 60-75% of a core for the first ~20 s of HTTP contact upserts), so both sides are warmed up before either
    // is measured: the store reference's own write, then the HTTP upserts (which run more of the store's code).
    log(`contacts-api: warm-up (store upserts ${PHASE_MS / 1000} s, then HTTP upserts ${HTTP_WARMUP_MS / 1000} s)`);
    await storeUpserts(store);
    await measure(1e9, HTTP_WARMUP_MS, (i) => upsert(1 + (i % 2), `warm${i >> 1}@example.net`, 'warm-up'));
    await store.contacts.deleteMany({ account, lastName: 'warm-up' });

    log(`contacts-api: store reference (findOneAndUpdate upsert, ${CONCURRENCY} in flight, ${PHASE_MS / 1000} s)`);
    const before = await storeUpserts(store);
    log(`contacts-api: ${UPSERTS} creates over HTTP, ${CONCURRENCY} at a time`);
    const creates = await measure(UPSERTS, 120_000, (i) => upsert(1, `person${i}@example.com`, 'creates'));
    log(`contacts-api: ${UPSERTS} updates over HTTP, ${CONCURRENCY} at a time`);
    const updates = await measure(UPSERTS, 120_000, (i) => upsert(2, `person${i}@example.com`, 'updates'));
    log('contacts-api: store reference again');
    const after = await storeUpserts(store);
    log(`contacts-api: the HTTP upsert's own write, sent directly (${UPSERTS} contact upserts)`);
    const contactWrites = await storeContactUpserts(store);
    await store.contacts.deleteMany({ account: 'benchref' });
    const storeUpsertsPerS = round((before.per_s + after.per_s) / 2);

    log(`contacts-api: filling the account to ${BIG_ACCOUNT} contacts (insertMany)`);
    await fillContacts(store, account, UPSERTS, BIG_ACCOUNT);

    const page = async (query: string) => {
      const times: number[] = [];
      for (let i = 0; i < PAGE_REQUESTS; i++) times.push(await call('GET', `/contacts?${query}&offset=${i * 20}`));
      return { p50_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)) };
    };
    log('contacts-api: filtered listing pages');
    const filtered = await page('filter[state]=active&filter[list]=2&filter[domain]=example.com&limit=20');
    const search = await page('q=*99*&sortby=quality&sortdir=desc&limit=20');

    return {
      scenario: 'contacts-api',
      concurrency: CONCURRENCY,
      store_upserts_per_s: storeUpsertsPerS,
      store_upserts_before: before,
      store_upserts_after: after,
      http_contact_creates: creates,
      http_contact_updates: updates,
      ratio_creates_to_store_upserts: round(creates.per_s / storeUpsertsPerS, 2),
      ratio_updates_to_store_upserts: round(updates.per_s / storeUpsertsPerS, 2),
      store_contact_upserts: contactWrites,
      ratio_creates_to_store_contact_upserts: round(creates.per_s / contactWrites.per_s, 2),
      page_100k_filtered: filtered,
      page_100k_search_sorted: search,
      notes: `H2 file with durable commits (npm start's store); the API on its own thread (bench/api-thread.ts), ${CONCURRENCY} requests ` +
        `in flight over keep-alive connections (undici Pool); creates = new emails into list 1, updates = the same emails into list 2 (found by email, ` +
        `updated, list added); store_upserts_per_s = the mean of store_upserts_before and _after: findOneAndUpdate $inc upserts over 1000 ` +
        `keys on the same store, ${CONCURRENCY} in flight, ${PHASE_MS / 1000} s each, measured just before the creates and just after the ` +
        `updates; both sides warmed up first (${PHASE_MS / 1000} s and ${HTTP_WARMUP_MS / 1000} s); store_contact_upserts = the contact upsert each HTTP request asks for (planUpsert), ` +
        `new contacts, sent directly as one findOneAndUpdate each, ${CONCURRENCY} in flight (the API sends those of requests arriving together as one update command); pages: GET /contacts with ${BIG_ACCOUNT} contacts in the account, ` +
        `${PAGE_REQUESTS} sequential pages each`,
    };
  } finally {
    await teardown.run();
  }
}
