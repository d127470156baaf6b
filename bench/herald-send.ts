// (c) The real Herald path: POST /v1/mail/send through the Koa API, the store, Temporal and the
// worker to a counting relay. Two loads: single-recipient requests from 50 concurrent clients
// (accepted/s, p99 accept latency, delivered/s beside accepted/s and beside the relay's own
// speed), and one 1000-recipient request (recipients/s beside the relay's own speed: the same
// number of messages composed beforehand and sent raw by nodemailer to the same kind of sink).
// Where a single send's cost goes is printed too: each process's and thread's CPU per request
// (the API, the worker, the store, Temporal, the sink), and a profile of the API's and the
// worker's threads by stage, taken on a pass of its own. Reported beside the references measured
// in the same run, so the figures say what Herald adds.
import { MongoClient } from 'mongodb';
import { Pool } from 'undici';
import { startListener } from './api-thread';
import { profileThread } from './cpu-profile';
import { API_STAGES, singleSendMeter, stagesPerRequest, WORKER_STAGES } from './single-send-cost';
import { measureTemporalReference, startBenchHerald, startBenchStack } from './herald-stack';
import { runSendLoad } from './load-thread';
import { recipientOf, sampleHtml } from './mail';
import { percentile, perSecond, round } from './stats';
import { measurePrebuiltRaw } from './nodemailer-raw';
import { log, runPool, Teardown } from './support';

const REQUESTS = 1500;
/** Requests sent before the timed ones, so the JITs (node's, the store's JVM) are warm as in a service that has run a while. */
const WARM_UP_REQUESTS = 500;
/** Requests of the profiled pass (after the timed one). */
const PROFILED_REQUESTS = 500;
/** Clients sending at once, each over its own keep-alive connection. */
const CONCURRENCY = 50;
const BIG_REQUEST_RECIPIENTS = 1000;
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

/** One request to many recipients, each with a substitution; `variant` picks its content and addresses. */
function bigSendBody(count: number, variant: number) {
  return JSON.stringify({
    from: { email: 'bench@herald.test', name: 'Bench' },
    subject: 'Your order ${order} shipped',
    content: { html: sampleHtml(variant).replace('<body>', '<body><p>Hello ${name}, order ${order}</p>') },
    recipients: Array.from({ length: count }, (_, i) => ({
      to: { email: recipientOf(100_000 * (variant + 1) + i) }, substitutions: { name: `R${i}`, order: `B-${i}` },
    })),
  });
}

export async function runHeraldSend(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const stack = await startBenchStack('herald-send', teardown);
    const { sink } = stack;
    log('herald-send: store reference (insertOne)');
    const storeInserts = await measureStoreInserts(stack.store.uri);
    log(`herald-send: bare Temporal reference on this server (signalWithStart, ${CONCURRENCY} in flight)`);
    // Beside the accept rate, the server's own rate of signalWithStart calls (what each request cost
    // before the send queue; the API now rings a sender only when none is draining).
    const { signalWithStartPerS } = await measureTemporalReference(stack, CONCURRENCY, false);

    log('herald-send: starting Herald (worker in-process, API on its own thread)');
    const herald = await startBenchHerald(stack, teardown);
    const { transactionalKey } = herald;
    // The API on a thread of its own, as it is a process of its own in a deployment (docker/compose.yaml).
    const api = await startListener('api', stack.store.uri, herald.config.mongodbDatabase, teardown, herald.listenerTemporal);
    const apiBase = `http://127.0.0.1:${api.port}`;
    // The big request, one at a time from this thread (the 50 clients have a thread of their own).
    const client = new Pool(apiBase, { connections: 1 });
    teardown.defer('http client', () => client.close());

    const postBody = async (body: string) => {
      const t0 = performance.now();
      const res = await client.request({
        method: 'POST', path: '/v1/mail/send', body,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${transactionalKey}` },
      });
      const text = await res.body.text(); // read to the end, so the keep-alive connection is reused
      if (res.statusCode !== 202) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
      return performance.now() - t0;
    };
    const load = { apiBase, transactionalKey, concurrency: CONCURRENCY, timeoutMs: 120_000 };
    let delivered = 0;
    const delivery = async (count: number) => sink.waitFor((delivered += count), 180_000);

    log(`herald-send: ${WARM_UP_REQUESTS} requests to warm up`);
    await runSendLoad({ ...load, first: -WARM_UP_REQUESTS, count: WARM_UP_REQUESTS }, () => undefined);
    await delivery(WARM_UP_REQUESTS);

    log(`herald-send: ${REQUESTS} requests, ${CONCURRENCY} at a time (clients on a thread of their own)`);
    const cpu = singleSendMeter(stack, api.tid);
    let started = 0;
    const pool = await runSendLoad({ ...load, first: 0, count: REQUESTS }, () => { started = performance.now(); cpu.start(); });
    const acceptedMs = pool.durationMs;
    const accepted = pool.results.length;
    let reachedAt: number | undefined;
    try {
      reachedAt = await delivery(accepted);
    } catch (error) {
      log(`herald-send: ${(error as Error).message}`);
    }
    const cpuPerRequest = cpu.perRequest(accepted, pool.cpuMs, 'api');
    const sendsPerS = reachedAt === undefined ? NaN : perSecond(accepted, reachedAt - started);
    const acceptedPerS = perSecond(accepted, acceptedMs);

    log(`herald-send: ${PROFILED_REQUESTS} requests with the API's and the worker's threads profiled`);
    const stopApi = await api.profile('herald-send-api', API_STAGES);
    const stopWorker = await profileThread('herald-send-worker', WORKER_STAGES);
    await runSendLoad({ ...load, first: REQUESTS, count: PROFILED_REQUESTS }, () => undefined);
    await delivery(PROFILED_REQUESTS);
    const [apiStages, workerStages] = await Promise.all([stopApi(), stopWorker()]);

    // Warm-up: a first big request of another content, so the timed one meets warm JITs (node's and
    // the store's) as the prebuilt reference, measured after its own warm-up, does.
    log(`herald-send: one request to ${BIG_REQUEST_RECIPIENTS} recipients (warm-up), then another`);
    await postBody(bigSendBody(BIG_REQUEST_RECIPIENTS, 1));
    await delivery(BIG_REQUEST_RECIPIENTS).catch(() => undefined);
    const bigStarted = performance.now();
    await postBody(bigSendBody(BIG_REQUEST_RECIPIENTS, 0));
    let bigReachedAt: number | undefined;
    try {
      bigReachedAt = await delivery(BIG_REQUEST_RECIPIENTS);
    } catch (error) {
      log(`herald-send: ${(error as Error).message}`);
    }
    const recipientsPerS = bigReachedAt === undefined ? NaN : perSecond(BIG_REQUEST_RECIPIENTS, bigReachedAt - bigStarted);
    log('herald-send: the relay\'s own speed (prebuilt raw MIME, nodemailer, same sink)');
    const prebuilt = await measurePrebuiltRaw(sink.url, BIG_REQUEST_RECIPIENTS);
    return {
      scenario: 'herald-send',
      accepted_per_s: acceptedPerS,
      p50_accept_ms: round(percentile(pool.results, 50)),
      p99_accept_ms: round(percentile(pool.results, 99)),
      accepted,
      request_errors: REQUESTS - accepted,
      ...(pool.firstError ? { first_error: pool.firstError } : {}),
      sends_per_s: sendsPerS,
      ratio_sends_to_prebuilt_raw: round(sendsPerS / prebuilt.messages_per_s, 2),
      ratio_delivered_to_accepted: round(sendsPerS / acceptedPerS, 2),
      big_request_recipients_per_s: recipientsPerS,
      prebuilt_raw_messages_per_s: prebuilt.messages_per_s,
      ratio_big_request_to_prebuilt_raw: round(recipientsPerS / prebuilt.messages_per_s, 2),
      signal_with_start_per_s: signalWithStartPerS,
      ratio_accepted_to_signal_with_start: round(acceptedPerS / signalWithStartPerS, 2),
      cpu_ms_per_request: cpuPerRequest,
      stages_ms_per_request: { api_thread: stagesPerRequest(apiStages, PROFILED_REQUESTS), worker_thread: stagesPerRequest(workerStages, PROFILED_REQUESTS) },
      store_insert_per_s: storeInserts.sendRequestDocs,
      store_insert_small_per_s: storeInserts.smallDocs,
      notes: `single-recipient ~15 KB requests (each its own content, tracked) from ${CONCURRENCY} clients (undici Pool, keep-alive, bodies made beforehand, on a thread of their own), ` +
        `after ${WARM_UP_REQUESTS} to warm up; sends_per_s = first request to the sink's ${accepted}th message; ` +
        'cpu_ms_per_request = CPU of each process and thread over the timed requests (/proc), per request: other_node_threads = the relay thread, the workflow ' +
        'thread, V8\'s garbage collection and compiler threads, the Temporal SDK\'s; store_jit = the store JVM\'s compiler threads; ' +
        `stages_ms_per_request = a sampling profile of the API's and the worker's threads over ${PROFILED_REQUESTS} more requests, by stage (wall time on the thread, the profiler's cost included); ` +
        `big request = ${BIG_REQUEST_RECIPIENTS} recipients with 2 substitutions each, POST to the sink's last message (after one such request of another content as a warm-up), beside the same number of ` +
        `prebuilt raw messages sent by nodemailer (5 pooled connections, 50 in flight) to the same sink; signal_with_start_per_s = bare signalWithStart into one workflow on the same server, ${CONCURRENCY} in flight; ` +
        `store_insert_per_s = memory backend insertOne of ~15 KB send-request-shaped docs, store_insert_small_per_s of ~100 B docs, ${CONCURRENCY} in flight`,
    };
  } finally {
    await teardown.run();
  }
}
