// (c) The real Herald path: POST /v1/mail/send through the Koa API, the store, Temporal and the
// worker to a counting relay. Two loads: single-recipient requests from 50 concurrent clients
// (accepted/s beside bare signalWithStart on the same Temporal server, p99 accept latency, and
// delivered/s beside accepted/s), and one 1000-recipient request (recipients/s beside the relay's
// own speed: the same number of messages composed beforehand and sent raw by nodemailer to the
// same kind of sink). Reported beside the references measured in the same run, so the figures
// say what Herald adds.
import { MongoClient } from 'mongodb';
import { Pool } from 'undici';
import { startApiThread } from './api-thread';
import { measureTemporalReference, startBenchHerald, startBenchStack } from './herald-stack';
import { runSendLoad } from './load-thread';
import { recipientOf, sampleHtml, sendRequestBody } from './mail';
import { percentile, perSecond, round } from './stats';
import { measurePrebuiltRaw } from './nodemailer-raw';
import { log, runPool, Teardown } from './support';

const REQUESTS = 1500;
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
    // Accepting is compared with the server's own signalWithStart rate, like with like (a request is a
    // signal into its account's sender); no-op workflows per second measured nothing a send does.
    const { signalWithStartPerS } = await measureTemporalReference(stack, CONCURRENCY, false);

    log('herald-send: starting Herald (worker in-process, API on its own thread)');
    const herald = await startBenchHerald(stack, teardown);
    const { transactionalKey } = herald;
    // The API on a thread of its own, as it is a process of its own in a deployment (docker/compose.yaml).
    const apiBase = await startApiThread(stack.store.uri, herald.config.mongodbDatabase, teardown, herald.listenerTemporal);
    // The warm-up and the big request, one at a time from this thread (the 50 clients have a thread of their own).
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
    // Warm-up: one send end to end, so the first-time costs (workflow cache, relay connection) stay out.
    await postBody(sendRequestBody(-1));
    await sink.waitFor(1, 60_000);

    log(`herald-send: ${REQUESTS} requests, ${CONCURRENCY} at a time (clients on a thread of their own)`);
    let started = 0;
    const pool = await runSendLoad(
      { apiBase, transactionalKey, first: 0, count: REQUESTS, concurrency: CONCURRENCY, timeoutMs: 120_000 },
      () => { started = performance.now(); },
    );
    const acceptedMs = pool.durationMs;
    const accepted = pool.results.length;
    let reachedAt: number | undefined;
    try {
      reachedAt = await sink.waitFor(1 + accepted, 180_000);
    } catch (error) {
      log(`herald-send: ${(error as Error).message}`);
    }
    const delivered = (await sink.count()) - 1;
    const sendsPerS = reachedAt === undefined ? NaN : perSecond(accepted, reachedAt - started);
    const acceptedPerS = perSecond(accepted, acceptedMs);

    // Warm-up: a first big request of another content, so the timed one meets warm JITs (node's and
    // the store's) as the prebuilt reference, measured after its own warm-up, does.
    log(`herald-send: one request to ${BIG_REQUEST_RECIPIENTS} recipients (warm-up), then another`);
    await postBody(bigSendBody(BIG_REQUEST_RECIPIENTS, 1));
    await sink.waitFor(1 + accepted + BIG_REQUEST_RECIPIENTS, 180_000).catch(() => undefined);
    const bigStarted = performance.now();
    await postBody(bigSendBody(BIG_REQUEST_RECIPIENTS, 0));
    let bigReachedAt: number | undefined;
    try {
      bigReachedAt = await sink.waitFor(1 + accepted + 2 * BIG_REQUEST_RECIPIENTS, 180_000);
    } catch (error) {
      log(`herald-send: ${(error as Error).message}`);
    }
    const recipientsPerS = bigReachedAt === undefined ? NaN : perSecond(BIG_REQUEST_RECIPIENTS, bigReachedAt - bigStarted);
    log('herald-send: the relay\'s own speed (prebuilt raw MIME, nodemailer, same sink)');
    const prebuilt = await measurePrebuiltRaw(sink.url, BIG_REQUEST_RECIPIENTS);
    return {
      scenario: 'herald-send',
      accepted_per_s: acceptedPerS,
      signal_with_start_per_s: signalWithStartPerS,
      ratio_accepted_to_signal_with_start: round(acceptedPerS / signalWithStartPerS, 2),
      p50_accept_ms: round(percentile(pool.results, 50)),
      p99_accept_ms: round(percentile(pool.results, 99)),
      accepted,
      request_errors: REQUESTS - accepted,
      ...(pool.firstError ? { first_error: pool.firstError } : {}),
      sends_per_s: sendsPerS,
      ratio_delivered_to_accepted: round(sendsPerS / acceptedPerS, 2),
      delivered,
      big_request_recipients_per_s: recipientsPerS,
      prebuilt_raw_messages_per_s: prebuilt.messages_per_s,
      ratio_big_request_to_prebuilt_raw: round(recipientsPerS / prebuilt.messages_per_s, 2),
      store_insert_per_s: storeInserts.sendRequestDocs,
      store_insert_small_per_s: storeInserts.smallDocs,
      notes: `single-recipient ~15 KB requests from ${CONCURRENCY} clients (undici Pool, keep-alive, on a thread of their own); sends_per_s = first request to the ` +
        `sink's ${accepted}th message; signal_with_start_per_s = bare signalWithStart into one workflow on the same server, ${CONCURRENCY} in flight; ` +
        `big request = ${BIG_REQUEST_RECIPIENTS} recipients with 2 substitutions each, POST to the sink's last message (after one such request of another content as a warm-up), beside the same number of ` +
        `prebuilt raw messages sent by nodemailer (5 pooled connections, 50 in flight) to the same sink; store_insert_per_s = memory backend insertOne of ` +
        `~15 KB send-request-shaped docs, store_insert_small_per_s of ~100 B docs, ${CONCURRENCY} in flight`,
    };
  } finally {
    await teardown.run();
  }
}
