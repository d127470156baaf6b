// GET /metrics on a running Herald: valid Prometheus text, and the figures move with what Herald
// does — requests by route pattern (never a raw path), messages by outcome from real sends
// through a real relay, events stored, the AccountSender's backlog, a real open pixel hit, a real
// webhook delivery to an HTTP receiver. The optional token, and the separate worker's own server.
import type { NewAccount } from '../../core/accounts/accounts';
import { serveMetrics } from '../../adapters/metrics/server';
import { batchEvents } from '../support/events';
import { composeTestHerald, listenLocally, startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { ledgerCount } from '../support/ledger';
import { waitUntil } from '../support/wait';
import { parsePrometheus, valueOf, type Scrape } from '../support/prometheus';
import { startWebhookReceiver } from '../support/webhook-receiver';

let herald: TestHerald;
let acme: NewAccount;
// ownStack: the file reads this realm's metrics registry, which only a Herald of its own fills.
const sinkOptions = { rejectRecipients: ['gone@example.org'], deferRecipients: [] as string[], ownStack: true };

beforeAll(async () => {
  herald = await startTestHerald(sinkOptions);
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

async function scrape(baseUrl = herald.baseUrl, headers: Record<string, string> = {}): Promise<Scrape> {
  const response = await fetch(`${baseUrl}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheus(await response.text());
}

const send = async (emails: string[], content: object = { text: 'Hello' }) => {
  const answer = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: { authorization: `Bearer ${acme.transactionalKey}` },
    json: { from: { email: 'shop@example.com' }, subject: 'News', content, recipients: emails.map((email) => ({ to: { email } })) },
  });
  expect(answer.status).toBe(202);
  return answer.headers.get('herald-batch-id')!;
};

/** Scrapes until `check` holds (the worker records outcomes after the API answered), or fails after 30 s. */
async function eventually(check: (scrape: Scrape) => boolean): Promise<Scrape> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = await scrape();
    if (check(current)) return current;
    if (Date.now() > deadline) throw new Error('the metrics did not reach the expected figures within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const sendRoute = { route: '/v1/mail/send', method: 'POST', status: '202' };

it('is valid Prometheus text declaring every Herald metric, with help', async () => {
  const { families } = await scrape();
  const expected: Record<string, string> = {
    herald_http_requests_total: 'counter', herald_http_request_duration_seconds: 'histogram', herald_messages_total: 'counter',
    herald_tracking_hits_total: 'counter', herald_events_stored_total: 'counter', herald_webhook_requests_total: 'counter',
    herald_webhook_events_delivered_total: 'counter', herald_webhook_events_discarded_total: 'counter', herald_gathering_backlog: 'gauge',
  };
  for (const [name, type] of Object.entries(expected)) {
    expect([name, families.get(name)?.type, Boolean(families.get(name)?.help)]).toEqual([name, type, true]);
  }
  expect(families.get('herald_process_resident_memory_bytes')?.type).toBe('gauge'); // prom-client's own, under the prefix
});

it('counts a send: the request by its route, the messages sent and their events stored', async () => {
  const before = await scrape();
  const batch = await send(['a@example.net', 'b@example.net']);
  await batchEvents(herald.services.store, acme.account, batch, 2);
  const after = await eventually((s) => valueOf(s, 'herald_messages_total', { outcome: 'sent' }) >= valueOf(before, 'herald_messages_total', { outcome: 'sent' }) + 2);
  const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
  expect(delta('herald_messages_total', { outcome: 'sent' })).toBe(2);
  expect(delta('herald_http_requests_total', sendRoute)).toBe(1);
  expect(delta('herald_http_request_duration_seconds_count', sendRoute)).toBe(1);
  expect(delta('herald_http_request_duration_seconds_sum', sendRoute)).toBeGreaterThan(0);
  expect(delta('herald_events_stored_total', { track_type: 'track.mail.sent' })).toBe(2);
});

it('counts a bounce and a drop by outcome', async () => {
  const before = await scrape();
  await batchEvents(herald.services.store, acme.account, await send(['gone@example.org']), 1); // the relay refuses it for good
  await batchEvents(herald.services.store, acme.account, await send(['gone@example.org']), 1); // now suppressed
  const after = await eventually((s) => valueOf(s, 'herald_messages_total', { outcome: 'dropped' }) > valueOf(before, 'herald_messages_total', { outcome: 'dropped' }));
  for (const outcome of ['bounced', 'dropped']) {
    expect([outcome, valueOf(after, 'herald_messages_total', { outcome }) - valueOf(before, 'herald_messages_total', { outcome })]).toEqual([outcome, 1]);
  }
  expect(valueOf(after, 'herald_events_stored_total', { track_type: 'track.mail.bounced' })).toBeGreaterThanOrEqual(1);
  expect(valueOf(after, 'herald_events_stored_total', { track_type: 'track.mail.dropped' })).toBeGreaterThanOrEqual(1);
});

it('labels requests by route pattern and status: no raw path, no account name; unknown paths are "unmatched"', async () => {
  const bad = { authorization: 'Bearer nope' };
  await callHerald(herald.baseUrl, 'GET', `/v2/${acme.account}/contacts`, { headers: { authorization: `Bearer ${acme.apiKey}` } });
  await callHerald(herald.baseUrl, 'GET', `/v2/${acme.account}/lists/12345`, { headers: { authorization: `Bearer ${acme.apiKey}` } }); // 404 from the route
  await callHerald(herald.baseUrl, 'GET', `/v2/${acme.account}/contacts`, { headers: bad }); // 401 from the router's authentication
  await callHerald(herald.baseUrl, 'DELETE', '/v1/mail/send'); // 405
  await callHerald(herald.baseUrl, 'GET', `/no/such/${acme.account}/path`);
  const after = await scrape();
  const count = (route: string, method: string, status: string) => valueOf(after, 'herald_http_requests_total', { route, method, status });
  expect(count('/v2/:account/contacts', 'GET', '200')).toBe(1);
  expect(count('/v2/:account/lists/:id', 'GET', '404')).toBe(1);
  expect(count('/v2/:account/contacts', 'GET', '401')).toBe(1);
  expect(count('/v1/mail/send', 'DELETE', '405')).toBe(1);
  expect(count('unmatched', 'GET', '404')).toBeGreaterThanOrEqual(1);
  const routes = [...after.samples.keys()].filter((k) => k.startsWith('herald_http_requests_total')).map((k) => /route="([^"]*)"/.exec(k)![1]);
  expect(routes.filter((route) => route.includes(acme.account))).toEqual([]);
  expect(routes.every((route) => route === 'unmatched' || route.startsWith('/'))).toBe(true);
});

it('shows the gathering backlog: requests an AccountSender still holds while a relay defers', async () => {
  // A request the relay keeps deferring waits in its AccountSender; an attempt at a second one,
  // sent once the first was deferred, begins with the first still held.
  sinkOptions.deferRecipients.push('later@example.net');
  const first = await send(['later@example.net']);
  for (const deadline = Date.now() + 30_000; !herald.sink.deferred.includes('later@example.net') && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const batches = [first, await send(['later@example.net'])];
  await eventually((s) => valueOf(s, 'herald_gathering_backlog') >= 1);
  sinkOptions.deferRecipients.length = 0; // the relay takes them now: once sent, nothing is held
  for (const batch of batches) await batchEvents(herald.services.store, acme.account, batch, 1);
  await eventually((s) => valueOf(s, 'herald_gathering_backlog') === 0);
}, 90_000);

it('counts a tracking hit: the open pixel\'s request, the hit by kind and its events', async () => {
  const received = herald.sink.received.length;
  const batch = await send(['reader@example.net'], { html: '<html><body><p>Hello</p></body></html>' });
  const [mail] = (await herald.sink.waitFor(received + 1)).slice(received);
  // Its send recorded (a hit before that is held and counted once it is: core/tracking/held-hits.ts).
  const [sent] = await batchEvents(herald.services.store, acme.account, batch, 1);
  await waitUntil('the ledger row', async () => (await ledgerCount(herald.services.store, { _id: sent.mail_id, account: acme.account })) === 1);
  const pixel = /\/t\/o\/[^"'\s]+/.exec(String(mail.parsed.html))![0]; // the link points at HERALD_PUBLIC_URL: asked here of this Herald
  const before = await scrape();
  const hit = await fetch(`${herald.baseUrl}${pixel}`, { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' } });
  expect([hit.status, hit.headers.get('content-type')]).toEqual([200, 'image/gif']);
  const after = await scrape();
  const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
  expect(delta('herald_tracking_hits_total', { kind: 'open' })).toBe(1);
  expect(delta('herald_http_requests_total', { route: '/t/o/:token', method: 'GET', status: '200' })).toBe(1);
  // The pixel answers once its events are stored: the first hit of a message is an open and its first open.
  expect(delta('herald_events_stored_total', { track_type: 'track.mail.opened' })).toBe(1);
  expect(delta('herald_events_stored_total', { track_type: 'track.mail.first_opened' })).toBe(1);
});

it('counts a webhook delivery: the request by outcome and the events it carried', async () => {
  const receiver = await startWebhookReceiver();
  try {
    const created = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/webhooks`, {
      headers: { authorization: `Bearer ${acme.apiKey}` }, json: { url: receiver.url, events: ['track.mail.sent'] },
    });
    expect(created.status).toBe(201);
    const before = await scrape();
    const batch = await send(['hooked@example.net', 'hooked2@example.net']);
    await receiver.waitFor('the two sent events', () => receiver.events().filter((e) => e.batch_id === batch).length >= 2, 90_000);
    const after = await eventually((s) => valueOf(s, 'herald_webhook_events_delivered_total') >= valueOf(before, 'herald_webhook_events_delivered_total') + 2);
    const delivered = receiver.requests.filter((r) => r.events.some((e) => e.batch_id === batch));
    expect(valueOf(after, 'herald_webhook_requests_total', { outcome: 'delivered' }) - valueOf(before, 'herald_webhook_requests_total', { outcome: 'delivered' }))
      .toBeGreaterThanOrEqual(delivered.length);
    expect(valueOf(after, 'herald_webhook_events_delivered_total') - valueOf(before, 'herald_webhook_events_delivered_total')).toBeGreaterThanOrEqual(2);
    expect(valueOf(after, 'herald_webhook_events_discarded_total')).toBe(0);
  } finally {
    await receiver.close();
  }
}, 120_000);

describe('HERALD_METRICS_TOKEN', () => {
  it('when set, the API answers 401 without the bearer token and the metrics with it', async () => {
    const guarded = composeTestHerald({ HERALD_MONGODB_DATABASE: herald.services.store.db.databaseName, HERALD_TASK_QUEUE: 'unused', HERALD_METRICS_TOKEN: 's3cret-token' });
    const baseUrl = await listenLocally(await guarded.apiServer());
    try {
      const refused = await callHerald(baseUrl, 'GET', '/metrics');
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ type: 'UNAUTHORIZED' });
      expect((await callHerald(baseUrl, 'GET', '/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await scrape(baseUrl, { authorization: 'Bearer s3cret-token' })).families.size).toBeGreaterThan(9);
    } finally {
      await guarded.close();
    }
  });
});

describe('a worker\'s own metrics server (HERALD_WORKER_METRICS_PORT)', () => {
  it('serves the same registry at /metrics only, with the optional token', async () => {
    const open = await serveMetrics({ port: 0, host: '127.0.0.1' });
    const guarded = await serveMetrics({ port: 0, host: '127.0.0.1', token: 'w0rker' });
    try {
      const text = await scrape(`http://127.0.0.1:${open.port}`);
      expect(valueOf(text, 'herald_messages_total', { outcome: 'sent' })).toBeGreaterThanOrEqual(2); // this process's sends
      expect((await fetch(`http://127.0.0.1:${open.port}/other`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${open.port}/metrics`, { method: 'POST' })).status).toBe(405);
      expect((await fetch(`http://127.0.0.1:${guarded.port}/metrics`)).status).toBe(401);
      expect((await scrape(`http://127.0.0.1:${guarded.port}`, { authorization: 'Bearer w0rker' })).families.size).toBeGreaterThan(9);
    } finally {
      await open.close();
      await guarded.close();
    }
  });
});
