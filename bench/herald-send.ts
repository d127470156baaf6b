// (c) The real Herald path: POST /v1/mail/send through the Koa API, the store, Temporal and the
// worker to a counting relay. Reported beside the references measured in the same run (bare
// Temporal, the store's own insert rate), so the figure says what Herald adds.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { createApp } from '../api/app';
import { createAccount } from '../core/accounts';
import { loadConfig } from '../core/config';
import { newId } from '../core/ids';
import { createLogger } from '../core/logger';
import { connectServices } from '../core/services';
import { connectTemporal } from '../core/temporal';
import { startEmbeddedStore } from '../infra/store';
import { startEmbeddedTemporal } from '../infra/temporal';
import { createHeraldWorker } from '../worker';
import { startCountingSink } from './counting-sink';
import { recipientOf, sampleHtml } from './mail';
import { percentile, perSecond, round } from './stats';
import { log, runPool, Teardown } from './support';
import { measureNoopWorkflows, startBenchWorker } from './temporal-bare';

const REQUESTS = 300;
const CONCURRENCY = 20;
const STORE_DOCS = 2000;

/**
 * The store's own rate: insertOne with the driver, as many in flight as the API load, of
 * send-request-shaped documents (~15 KB, what the API writes per request) and of small ones.
 */
async function measureStoreInserts(uri: string): Promise<{ sendRequestDocs: number; smallDocs: number }> {
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    const db = client.db('bench_store_rate');
    const rate = async (name: string, body: object) => {
      const docs = db.collection<{ _id: string; account: string; body: object; acceptedAt: Date }>(name);
      const started = performance.now();
      const pool = await runPool(STORE_DOCS, CONCURRENCY, 60_000, (i) => docs.insertOne({ _id: `d${i}`, account: 'bench', body, acceptedAt: new Date() }));
      return perSecond(pool.results.length, performance.now() - started);
    };
    const sendRequestDocs = await rate('large', { subject: 'Order shipped', content: { html: sampleHtml(0) } });
    const smallDocs = await rate('small', { subject: 'Order shipped' });
    await db.dropDatabase();
    return { sendRequestDocs, smallDocs };
  } finally {
    await client.close();
  }
}

function sendBody(i: number) {
  return JSON.stringify({
    from: { email: 'bench@herald.test', name: 'Bench' },
    subject: `Order ${i} shipped`,
    content: { html: sampleHtml(i) },
    recipients: [{ to: { email: recipientOf(i) } }],
  });
}

/** `bareWorkflowsPerS`: temporal-bare's figure from this run; measured here when absent. */
export async function runHeraldSend(bareWorkflowsPerS?: number): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const dir = teardown.tempDir('herald-bench-send-');
    log('herald-send: starting the embedded store (memory) and Temporal (SQLite file)');
    const [storeStart, temporalStart] = await Promise.allSettled([
      startEmbeddedStore({ file: null, logFile: path.join(dir, 'store.log') }),
      startEmbeddedTemporal({ dbFile: path.join(dir, 'temporal.db'), logFile: path.join(dir, 'temporal.log') }),
    ]);
    if (storeStart.status === 'fulfilled') teardown.defer('store', () => storeStart.value.stop());
    if (temporalStart.status === 'fulfilled') teardown.defer('temporal', () => temporalStart.value.stop());
    if (storeStart.status === 'rejected') throw storeStart.reason;
    if (temporalStart.status === 'rejected') throw temporalStart.reason;
    const store = storeStart.value;
    const temporal = temporalStart.value;
    const sink = await startCountingSink();
    teardown.defer('counting sink', () => sink.stop());

    log('herald-send: store reference (insertOne)');
    const storeInserts = await measureStoreInserts(store.uri);
    let reference = { workflowsPerS: bareWorkflowsPerS, source: 'temporal-bare, same run' };
    if (reference.workflowsPerS === undefined) {
      log('herald-send: bare Temporal reference (no-op workflows on this server)');
      const ref = new Teardown(); // stopped before Herald's load, so it does not compete for the CPU
      try {
        const client = await connectTemporal(temporal.address, temporal.namespace);
        ref.defer('reference client', () => client.connection.close());
        await startBenchWorker(temporal.address, 'bench-ref', ref);
        reference = { workflowsPerS: (await measureNoopWorkflows(client, 'bench-ref')).workflows_per_s, source: 'measured in herald-send on its own server' };
      } finally {
        await ref.run();
      }
    }

    log('herald-send: starting Herald (worker + API in-process)');
    const config = loadConfig({ ...process.env, HERALD_MONGODB_DATABASE: 'herald_bench', HERALD_TASK_QUEUE: 'herald-bench', HERALD_LOG_LEVEL: 'silent' });
    const logger = createLogger('silent');
    const services = await connectServices(config, { mongodbUri: store.uri, temporalAddress: temporal.address });
    teardown.defer('services', () => services.close());
    const { worker, close } = await createHeraldWorker({
      store: services.store, temporalAddress: temporal.address, namespace: config.temporalNamespace, taskQueue: config.taskQueue,
      relayUrl: sink.url, mtaHost: 'herald.bench',
    });
    teardown.defer('herald worker connection', close);
    const running = worker.run();
    teardown.defer('herald worker', async () => { worker.shutdown(); await running; });
    const api = http.createServer(createApp({ ...services, namespace: config.temporalNamespace, logger }).callback());
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    teardown.defer('api', () => new Promise((resolve) => { api.close(resolve); api.closeAllConnections(); }));
    const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}/v1/mail/send`;
    const { transactionalKey } = await createAccount(services.store, `bench${newId().slice(0, 8).toLowerCase().replace(/[^a-z0-9]/g, '')}`);

    const post = async (i: number) => {
      const t0 = performance.now();
      const res = await fetch(url, {
        method: 'POST', body: sendBody(i),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${transactionalKey}` },
      });
      const text = await res.text(); // read to the end, so the keep-alive connection is reused
      if (res.status !== 202) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
      return performance.now() - t0;
    };
    // Warm-up: one send end to end, so the first-time costs (workflow cache, relay connection) stay out.
    await post(-1);
    await sink.waitFor(1, 60_000);

    log(`herald-send: ${REQUESTS} requests, ${CONCURRENCY} at a time`);
    const started = performance.now();
    const pool = await runPool(REQUESTS, CONCURRENCY, 120_000, post);
    const acceptedMs = performance.now() - started;
    const accepted = pool.results.length;
    let reachedAt: number | undefined;
    try {
      reachedAt = await sink.waitFor(1 + accepted, 180_000);
    } catch (error) {
      log(`herald-send: ${(error as Error).message}`);
    }
    const delivered = (await sink.count()) - 1;
    const sendsPerS = reachedAt === undefined ? NaN : perSecond(accepted, reachedAt - started);
    return {
      scenario: 'herald-send',
      accepted_per_s: perSecond(accepted, acceptedMs),
      p50_accept_ms: round(percentile(pool.results, 50)),
      p99_accept_ms: round(percentile(pool.results, 99)),
      accepted,
      request_errors: REQUESTS - accepted,
      ...(pool.firstError ? { first_error: pool.firstError } : {}),
      sends_per_s: sendsPerS,
      delivered,
      bare_workflows_per_s: reference.workflowsPerS,
      ratio_to_bare_temporal: round(sendsPerS / (reference.workflowsPerS ?? NaN), 2),
      store_insert_per_s: storeInserts.sendRequestDocs,
      store_insert_small_per_s: storeInserts.smallDocs,
      notes: `single-recipient ~15 KB requests, ${CONCURRENCY} in flight over keep-alive fetch; sends_per_s = first request to the ` +
        `sink's ${accepted}th message; bare reference: ${reference.source}; store_insert_per_s = memory backend insertOne of ` +
        `~15 KB send-request-shaped docs, store_insert_small_per_s of ~100 B docs, ${CONCURRENCY} in flight`,
    };
  } finally {
    await teardown.run();
  }
}
