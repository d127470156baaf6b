// The account API's contacts on the embedded store as `npm start` runs it (H2 file, every write
// durable before its reply): contact upserts over HTTP (POST /v2/{account}/lists/{id}/contacts),
// beside the store's own single-document upsert rate measured on the same store in the same run;
// then one filtered listing page with 100k contacts in the account.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../api/app';
import { createAccount } from '../core/accounts';
import { createLogger } from '../core/logger';
import { connectStore, type ContactDoc } from '../core/store';
import { startEmbeddedStore } from '../infra/store';
import { percentile, perSecond, round } from './stats';
import { log, runPool, Teardown } from './support';

const UPSERTS = 3000;
const CONCURRENCY = 20;
const BIG_ACCOUNT = 100_000;
const PAGE_REQUESTS = 30;

export async function runContactsApi(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const dir = teardown.tempDir('herald-bench-contacts-');
    log('contacts-api: starting the embedded store (H2 file, durable commits)');
    const embedded = await startEmbeddedStore({ file: path.join(dir, 'store.mv.db'), logFile: path.join(dir, 'store.log') });
    teardown.defer('store', () => embedded.stop());
    const store = await connectStore(embedded.uri, 'herald_bench_contacts');
    teardown.defer('store client', () => store.close());

    log(`contacts-api: store reference (findOneAndUpdate upsert, ${CONCURRENCY} in flight)`);
    const counters = store.db.collection<{ _id: string; n: number }>('bench_upserts');
    const refStarted = performance.now();
    const ref = await runPool(UPSERTS, CONCURRENCY, 60_000, (i) =>
      counters.findOneAndUpdate({ _id: `k${i % 1000}` }, { $inc: { n: 1 } }, { upsert: true }));
    const storeUpsertsPerS = perSecond(ref.results.length, performance.now() - refStarted);

    // Contacts need no Temporal: a lazy connection that is never used.
    const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const api = http.createServer(createApp({ store, temporal, taskQueue: 'unused', namespace: 'default', logger: createLogger('silent') }).callback());
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    teardown.defer('api', () => new Promise((resolve) => { api.close(resolve); api.closeAllConnections(); }));
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const { account, apiKey } = await createAccount(store, 'benchcontacts');
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const call = async (method: string, route: string, body?: unknown) => {
      const t0 = performance.now();
      const res = await fetch(`${base}/v2/${account}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
      return performance.now() - t0;
    };
    await call('POST', '/lists', { name: 'Customers' });
    await call('POST', '/lists', { name: 'Newsletter' });

    const upserts = async (what: string) => {
      log(`contacts-api: ${UPSERTS} ${what} over HTTP, ${CONCURRENCY} at a time`);
      const started = performance.now();
      const pool = await runPool(UPSERTS, CONCURRENCY, 120_000, (i) =>
        call('POST', `/lists/${what === 'creates' ? 1 : 2}/contacts`, { email: `person${i}@example.com`, firstName: `P${i}`, lastName: what }));
      return {
        per_s: perSecond(pool.results.length, performance.now() - started),
        p50_ms: round(percentile(pool.results, 50)),
        p99_ms: round(percentile(pool.results, 99)),
        errors: pool.errors,
        ...(pool.firstError ? { first_error: pool.firstError } : {}),
      };
    };
    const creates = await upserts('creates');
    const updates = await upserts('updates');

    log(`contacts-api: filling the account to ${BIG_ACCOUNT} contacts (insertMany)`);
    const now = new Date();
    const firstId = ((await store.counters.findOne({ _id: `${account}:contacts` }))?.seq ?? 0) + 1;
    for (let from = UPSERTS; from < BIG_ACCOUNT; from += 1000) {
      const batch: ContactDoc[] = [];
      for (let i = from; i < Math.min(from + 1000, BIG_ACCOUNT); i++) {
        batch.push({
          _id: `${account}:${firstId + i}`, account, id: firstId + i, email: `person${i}@${i % 10 === 0 ? 'example.org' : 'example.com'}`,
          firstName: `P${i}`, lastName: '', gender: '', language: '', preferredFormat: 'HTML', source: 'IMPORTED_CSV',
          state: i % 7 === 0 ? 'UNSUBSCRIBED' : 'ACTIVE', quality: (i % 100) / 100, lists: [i % 3 === 0 ? 2 : 1], interests: [],
          customFields: {}, created: now, lastModified: now, lastMailed: null, lastAction: null, inactivated: null,
        });
      }
      await store.contacts.insertMany(batch, { ordered: false });
    }
    await store.counters.updateOne({ _id: `${account}:contacts` }, { $set: { seq: firstId + BIG_ACCOUNT } });

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
      store_upserts_per_s: storeUpsertsPerS,
      http_contact_creates: creates,
      http_contact_updates: updates,
      ratio_creates_to_store_upserts: round(creates.per_s / storeUpsertsPerS, 2),
      ratio_updates_to_store_upserts: round(updates.per_s / storeUpsertsPerS, 2),
      page_100k_filtered: filtered,
      page_100k_search_sorted: search,
      notes: `H2 file with durable commits (npm start's store); ${CONCURRENCY} in flight over keep-alive fetch; creates = new emails into list 1, ` +
        'updates = the same emails into list 2 (found by email, updated, list added); store_upserts_per_s = findOneAndUpdate $inc upsert ' +
        `on the same store, same concurrency; pages: GET /contacts with ${BIG_ACCOUNT} contacts in the account, ${PAGE_REQUESTS} sequential pages each`,
    };
  } finally {
    await teardown.run();
  }
}
