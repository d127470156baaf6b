// Webhook delivery from a stored backlog: BACKLOG click-sized events inserted straight into the
// store, one endpoint enabled, and the WebhookDelivery workflow (Herald's worker in this thread)
// POSTs them to a local receiver (also in this thread: it only counts). Reported: events/s
// delivered, requests and events per request, the most requests seen in any sliding second at
// the receiver (the 250/s cap), and beside them the store's own rate of reading the same events
// the way a pass reads them (pages by _id cursor) and in one plain scan.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ObjectId } from 'mongodb';
import { createAccount } from '../core/accounts/accounts';
import { buildEvent } from '../core/tracking/events';
import type { EventDoc, Store } from '../adapters/store/store';
import { eventJsonFromBson } from '../core/webhooks/bson-json';
import { DEFAULT_TUNING } from '../core/webhooks/delivery-pass';
import { createEndpoint } from '../core/webhooks/endpoints';
import { startWebhookDelivery } from '../core/webhooks/lifecycle';
import { verifySignature } from '../core/webhooks/signature';
import { composeBenchHerald, startBenchStack } from './herald-stack';
import { perSecond, round } from './stats';
import { log, Teardown, within } from './support';

// 100k ~1 KB events take about half of the memory store's 1 GB heap (about 180k fill it).
const BACKLOG = Number(process.env.HERALD_BENCH_WEBHOOK_EVENTS ?? 100_000);
const INSERT_BATCH = 2000;
const GOAL_EVENTS_PER_S = 20_000;

/** A click event as the tracking endpoints store it (~900 bytes of JSON). */
function clickEvent(account: string, i: number, id: ObjectId, at: Date): EventDoc {
  const subject = {
    account, batch_id: `${account}_transactional_spring`, mail_id: `mail_bench_${i >> 1}`, email: `person${i >> 1}@example.net`,
    sent_timestamp: at, tags: ['spring', 'newsletter'], custom_args: { order: String(100_000 + i) }, mta: 'herald.bench',
  };
  const event = buildEvent('track.mail.clicked', subject, at, `bench-${i}`, {
    user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    os_class: 'Mobile', os: 'iOS', os_version: '17.4', agent_name: 'Mobile Safari', agent_version: '17.4', ip: `20.${i % 256}.1.1`,
    country: 'US', city: 'Mountain View', url: 'https://shop.example/products/1?utm_source=herald', link_id: '3', interests: ['shoes'], contact_id: '1234',
  });
  event._id = id;
  return event;
}

/** Inserts the backlog with _ids a minute old (settled), in _id order. */
async function insertBacklog(store: Store, account: string): Promise<void> {
  const at = new Date(Date.now() - 60_000);
  const prefix = `${Math.floor(at.getTime() / 1000).toString(16).padStart(8, '0')}beac`;
  for (let from = 0; from < BACKLOG; from += INSERT_BATCH) {
    const docs = Array.from({ length: Math.min(INSERT_BATCH, BACKLOG - from) }, (_, k) => {
      const i = from + k;
      return clickEvent(account, i, new ObjectId(`${prefix}${i.toString(16).padStart(12, '0')}`), at);
    });
    await store.events.insertMany(docs, { ordered: false });
  }
}

/**
 * A receiver that counts: events (occurrences of the key `"track_id":`, which a JSON string
 * cannot contain unescaped), requests and bytes, with each request's arrival time. One request
 * in 50 is also parsed and its signature checked, so the count is of real, signed event arrays.
 */
async function startCountingReceiver(teardown: Teardown, secret: () => string) {
  const state = { events: 0, requests: 0, bytes: 0, arrivals: [] as number[], checked: 0, bad: 0 };
  const key = Buffer.from('"track_id":');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.arrivals.push(performance.now());
      const body = Buffer.concat(chunks);
      state.bytes += body.length;
      let count = 0;
      for (let at = body.indexOf(key); at !== -1; at = body.indexOf(key, at + key.length)) count += 1;
      if (state.requests % 50 === 0) {
        state.checked += 1;
        const events = JSON.parse(body.toString('utf8')) as unknown[];
        if (events.length !== count || !verifySignature(secret(), body, req.headers['herald-signature'] as string)) state.bad += 1;
      }
      state.events += count;
      state.requests += 1;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  teardown.defer('receiver', () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, state };
}

function maxInAnySecond(times: number[]): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end += 1) {
    while (times[end] - times[start] >= 1000) start += 1;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/**
 * The store alone, reading the same events as a pass does: the same queries (account, _id after
 * the cursor, sorted, pages growing from 1,000 to 20,000) as raw BSON, timed apart from turning
 * them into JSON; and, for comparison, every event in one plain find decoded into objects (the
 * driver's default) and stringified.
 */
async function storeReadRates(store: Store, account: string, cursor: ObjectId) {
  const pageMs: number[] = [];
  let fetchMs = 0;
  let transcodeMs = 0;
  let read = 0;
  let jsonChars = 0;
  let from = cursor;
  let limit = 1000;
  for (;;) {
    const t0 = performance.now();
    const raw = await store.events.find({ account, _id: { $gt: from } }, { raw: true }).sort({ _id: 1 }).limit(limit).batchSize(limit).toArray();
    const t1 = performance.now();
    const events = (raw as unknown as Buffer[]).map(eventJsonFromBson);
    const t2 = performance.now();
    pageMs.push(t1 - t0);
    fetchMs += t1 - t0;
    transcodeMs += t2 - t1;
    if (events.length === 0) break;
    read += events.length;
    jsonChars += events.reduce((sum, e) => sum + e.json.length, 0);
    from = events[events.length - 1].id;
    limit = Math.min(limit * 4, DEFAULT_TUNING.pageSize); // as a pass grows its pages
  }
  const t3 = performance.now();
  const decoded = await store.events.find({ account }).toArray();
  const decodeMs = performance.now() - t3;
  const t4 = performance.now();
  for (const { _id, ...event } of decoded) JSON.stringify(event);
  const stringifyMs = performance.now() - t4;
  return {
    paged_per_s: perSecond(read, fetchMs + transcodeMs),
    paged_fetch_raw_per_s: perSecond(read, fetchMs),
    bson_to_json_per_s: perSecond(read, transcodeMs),
    pages: pageMs.length,
    page_ms_first: round(pageMs[0], 1),
    page_ms_last_full: round(pageMs[Math.max(0, pageMs.length - 2)], 1),
    decoded_find_all_per_s: perSecond(decoded.length, decodeMs),
    decoded_then_stringify_per_s: perSecond(decoded.length, decodeMs + stringifyMs),
    event_json_bytes: Math.round(jsonChars / Math.max(1, read)),
  };
}

export async function runWebhookDelivery(trackingHitsPerS?: number): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const stack = await startBenchStack('webhook-delivery', teardown);
    const herald = composeBenchHerald(stack, teardown, {
      HERALD_MONGODB_DATABASE: 'herald_bench_webhooks', HERALD_TASK_QUEUE: 'herald-bench-webhooks', HERALD_WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    const { config } = herald;
    const store = await herald.store();
    const { account } = await createAccount(store, 'benchhooks');
    let secret = '';
    const receiver = await startCountingReceiver(teardown, () => secret);

    log(`webhook-delivery: inserting a backlog of ${BACKLOG} click events`);
    const t0 = performance.now();
    await insertBacklog(store, account);
    const insertPerS = perSecond(BACKLOG, performance.now() - t0);
    const endpoint = await createEndpoint(store, account, { url: receiver.url, enabled: false }, true);
    secret = endpoint.secret;
    const cursor = ObjectId.createFromTime(Math.floor(Date.now() / 1000) - 3600);
    await store.webhooks.updateOne({ _id: endpoint._id }, { $set: { enabled: true, cursor } });

    void (await herald.worker()).run();

    log('webhook-delivery: delivering');
    const started = performance.now();
    await startWebhookDelivery(await herald.temporal(), config.taskQueue, account, endpoint.id);
    await within((async () => {
      while (receiver.state.events < BACKLOG) await new Promise((resolve) => setTimeout(resolve, 20));
    })(), 600_000, 'the backlog');
    const elapsedMs = performance.now() - started;
    const firstArrival = receiver.state.arrivals[0] - started;
    const deliveredPerS = perSecond(BACKLOG, elapsedMs);
    const busiestSecond = maxInAnySecond(receiver.state.arrivals);

    log('webhook-delivery: the store reading the same events');
    const reference = await storeReadRates(store, account, cursor);
    const duplicates = receiver.state.events - BACKLOG;
    return {
      scenario: 'webhook-delivery',
      backlog_events: BACKLOG,
      delivered_events_per_s: deliveredPerS,
      seconds: round(elapsedMs / 1000, 1),
      first_request_after_ms: round(firstArrival, 0),
      requests: receiver.state.requests,
      events_per_request: round(receiver.state.events / receiver.state.requests, 1),
      mb_per_s: round(receiver.state.bytes / 1e6 / (elapsedMs / 1000), 1),
      max_requests_in_any_second: busiestSecond,
      cap_held: busiestSecond <= 250,
      duplicates,
      requests_checked: receiver.state.checked,
      requests_failing_check: receiver.state.bad,
      store_insert_per_s: insertPerS,
      store_read: reference,
      ratio_to_store_paged_read: round(deliveredPerS / reference.paged_per_s, 2),
      goal_events_per_s: GOAL_EVENTS_PER_S,
      goal_met: deliveredPerS >= GOAL_EVENTS_PER_S && busiestSecond <= 250 && receiver.state.bad === 0,
      ...(trackingHitsPerS !== undefined ? { tracking_hits_per_s_this_run: trackingHitsPerS, keeps_up_with_tracking: deliveredPerS >= trackingHitsPerS } : {}),
      notes: `memory store; ${BACKLOG} ~1 KB click events inserted with settled _ids, then one endpoint enabled; default tuning ` +
        `(${DEFAULT_TUNING.maxEventsPerRequest} events or 1 MB per request, pages of ${DEFAULT_TUNING.pageSize}, ${DEFAULT_TUNING.concurrency} requests in flight); ` +
        'worker, receiver (counts events; parses and verifies one request in 50) and bench in one Node thread; time from the workflow start to the last event counted; ' +
        'store_read: the queries a pass makes (account, _id after the cursor, sorted, limit growing 1,000 to 20,000) as raw BSON, and their conversion to JSON timed apart; ' +
        'then one plain find of every event decoded into objects (the driver default) and stringified, for comparison',
    };
  } finally {
    await teardown.run();
  }
}
