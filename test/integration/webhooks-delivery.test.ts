// Webhook delivery end to end on the dev server, to a real HTTP receiver on 127.0.0.1: events of
// a real send (track.mail.sent, and track.mail.bounced for a recipient the relay refuses) arrive
// as signed JSON arrays; an endpoint's event types are honoured; a backlog goes in few requests of
// many events of mixed types; a rotated secret signs what follows; a refused POST is logged with
// its retry due a minute later, and does not hold newer events back. That retry, its one minute
// and its outcome in the deliveries log are proven on the time-skipping server, where the minute
// passes at once: test/workflows/webhook-retry.test.ts.
import type { NewAccount } from '../../core/accounts/accounts';
import { metrics } from '../../adapters/metrics/registry';
import { verifySignature } from '../../core/webhooks/signature';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type CallOptions } from '../support/http';
import { waitUntil } from '../support/wait';
import { storeSyntheticEvents } from '../support/webhook-events';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../support/webhook-receiver';

const RETRY_DELAY_MS = 60_000; // the spec's minute (Herald's default)

let herald: TestHerald;
let receiver: WebhookReceiver;

beforeAll(async () => {
  [herald, receiver] = await Promise.all([startTestHerald({ rejectRecipients: ['gone@example.org'], ownStack: true }), startWebhookReceiver()]); // ownStack: it reads this realm's metrics
});
afterAll(async () => {
  await herald?.stop();
  await receiver?.close();
});

/**
 * A new account with its API and its endpoints (on the receiver, told apart by a query). Each test
 * has an account of its own, so an endpoint gets only its test's events and the tests run at once:
 * their waits for events to settle overlap.
 */
async function newAccount() {
  const acme: NewAccount = await herald.newAccount();
  const api = (method: string, path: string, options: CallOptions = {}) =>
    callHerald(herald.baseUrl, method, `/v2/${acme.account}${path}`, { ...options, headers: { authorization: `Bearer ${acme.apiKey}` } });
  async function createEndpoint(query: string, events?: string[]): Promise<{ id: number; url: string; secret: string }> {
    const created = await api('POST', '/webhooks', { json: { url: `${receiver.url}?${query}`, ...(events ? { events } : {}) } });
    expect(created.status).toBe(201);
    return created.body.data;
  }
  return { acme, api, createEndpoint };
}

const requestsTo = (query: string) => receiver.requests.filter((r) => r.path.endsWith(`?${query}`));
const eventsTo = (query: string) => requestsTo(query).flatMap((r) => r.events);
const counter = async (metric: { get(): Promise<{ values: Array<{ value: number; labels: Record<string, unknown> }> }> }, labels: Record<string, string> = {}) =>
  (await metric.get()).values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0);

function expectSigned(requests: ReceivedRequest[], secret: string) {
  for (const request of requests) {
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^Herald-Webhooks\//);
    expect(request.headers['herald-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, request.rawBody, request.headers['herald-signature'] as string)).toBe(true);
    expect(Array.isArray(JSON.parse(request.rawBody))).toBe(true);
  }
}

describe('webhook delivery', () => {
  it.concurrent('POSTs the events of a real send as signed JSON arrays, each endpoint only its event types', async () => {
    const { acme, api, createEndpoint } = await newAccount();
    const all = await createEndpoint('all');
    const bounces = await createEndpoint('bounces', ['track.mail.bounced']);
    const deliveredBefore = await counter(metrics.webhookEventsDelivered);
    const sent = await fetch(`${herald.baseUrl}/v1/mail/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${acme.transactionalKey}` },
      body: JSON.stringify({
        from: { email: 'shop@example.com' }, subject: 'Your order', content: { html: '<p>Thanks</p>' },
        recipients: [{ to: { email: 'ada@example.net' }, tags: ['order'] }, { to: { email: 'gone@example.org' } }],
      }),
    });
    expect(sent.status).toBe(202);
    const batchId = sent.headers.get('herald-batch-id');
    const ofBatch = (query: string) => eventsTo(query).filter((e) => e.batch_id === batchId);
    await receiver.waitFor('the sent and bounced events', () => ofBatch('all').length >= 2 && ofBatch('bounces').length >= 1, 90_000);

    const stored = await herald.services.store.events.find({ account: acme.account, batch_id: batchId! }).toArray();
    expect(stored.map((e) => e.track_type).sort()).toEqual(['track.mail.bounced', 'track.mail.sent']);
    // Exactly the stored events, every field but Herald's own: the store's _id, the ledger's fields.
    expect(stored.every((e) => e._ledger)).toBe(true);
    const expected = stored.map(({ _id, _outcome_of, _ledger, ...event }) => event);
    expect(ofBatch('all').sort((a, b) => a.track_type.localeCompare(b.track_type))).toEqual(expected.sort((a, b) => a.track_type.localeCompare(b.track_type)));
    expect(ofBatch('all').find((e) => e.track_type === 'track.mail.sent')).toMatchObject({ email: 'ada@example.net', tags: ['order'] });
    expect(ofBatch('bounces')).toEqual([expected.find((e) => e.track_type === 'track.mail.bounced')]);
    expect(eventsTo('bounces').every((e) => e.track_type === 'track.mail.bounced')).toBe(true);
    expectSigned(requestsTo('all'), all.secret);
    expectSigned(requestsTo('bounces'), bounces.secret);
    expect(verifySignature(bounces.secret, requestsTo('all')[0].rawBody, requestsTo('all')[0].headers['herald-signature'] as string)).toBe(false);
    // The receiver records a request before it answers; the worker counts its events once it has the answer.
    const delivered = await waitUntil('the delivered events counted', async () => {
      const now = await counter(metrics.webhookEventsDelivered);
      return now >= deliveredBefore + 3 ? now : undefined;
    });
    expect(delivered).toBeGreaterThanOrEqual(deliveredBefore + 3);
    await api('DELETE', `/webhooks/${bounces.id}`);
    await api('DELETE', `/webhooks/${all.id}`);
  }, 120_000);

  it.concurrent('sends a backlog in few requests of many events of mixed types, each event once', async () => {
    const { acme, api, createEndpoint } = await newAccount();
    const endpoint = await createEndpoint('backlog');
    const trackIds = await storeSyntheticEvents(herald.services.store, acme.account, 1200, ['track.mail.opened', 'track.mail.clicked']);
    const received = () => eventsTo('backlog').filter((e) => trackIds.includes(e.track_id));
    await receiver.waitFor('the backlog', () => received().length >= 1200, 90_000);
    const requests = requestsTo('backlog');
    expect(requests.length).toBeLessThanOrEqual(12); // 500 events per request at most: 3 when read in one page
    expect(Math.max(...requests.map((r) => r.events.length))).toBeGreaterThanOrEqual(100);
    expect(requests.some((r) => new Set(r.events.map((e: { track_type: string }) => e.track_type)).size === 2)).toBe(true);
    expect(new Set(received().map((e) => e.track_id)).size).toBe(1200);
    expect(received()).toHaveLength(1200); // none twice
    expectSigned(requests, endpoint.secret);
    await api('DELETE', `/webhooks/${endpoint.id}`);
  }, 120_000);

  it.concurrent('signs with the new secret once rotated', async () => {
    const { acme, api, createEndpoint } = await newAccount();
    const endpoint = await createEndpoint('rotate');
    const first = await storeSyntheticEvents(herald.services.store, acme.account, 3);
    await receiver.waitFor('events before the rotation', () => eventsTo('rotate').filter((e) => first.includes(e.track_id)).length === 3, 60_000);
    const rotated = await api('POST', `/webhooks/${endpoint.id}/rotate-secret`);
    const { secret } = rotated.body.data;
    const seen = requestsTo('rotate').length;
    const after = await storeSyntheticEvents(herald.services.store, acme.account, 3);
    await receiver.waitFor('events after the rotation', () => eventsTo('rotate').filter((e) => after.includes(e.track_id)).length === 3, 60_000);
    const later = requestsTo('rotate').slice(seen);
    expectSigned(later, secret);
    for (const request of later) expect(verifySignature(endpoint.secret, request.rawBody, request.headers['herald-signature'] as string)).toBe(false);
    await api('DELETE', `/webhooks/${endpoint.id}`);
  }, 120_000);

  it.concurrent('logs a refused POST with its retry due a minute later, and goes on with newer events meanwhile', async () => {
    const { acme, api, createEndpoint } = await newAccount();
    const endpoint = await createEndpoint('refused');
    const rejectedBefore = await counter(metrics.webhookRequests, { outcome: 'rejected' });
    receiver.answer = (request) => (request.path.endsWith('?refused') && request.headers['herald-attempt'] === '1' && requestsTo('refused').length === 1 ? 503 : 200);
    const refused = await storeSyntheticEvents(herald.services.store, acme.account, 4, ['track.mail.opened']);
    await receiver.waitFor('the refused POST', () => requestsTo('refused').length >= 1, 60_000);
    const failedAt = requestsTo('refused')[0].at;
    expect(requestsTo('refused')[0].events.map((e) => e.track_id)).toEqual(refused);

    // Newer events go out while the refused ones wait for their retry.
    const newer = await storeSyntheticEvents(herald.services.store, acme.account, 2, ['track.mail.clicked']);
    // Waited for up to what the next line allows (well before the retry's minute): a busy machine may take a while.
    await receiver.waitFor('newer events', () => eventsTo('refused').some((e) => newer.includes(e.track_id)), RETRY_DELAY_MS - 5000);
    expect(receiver.requests.find((r) => r.events.some((e) => newer.includes(e.track_id)))!.at - failedAt).toBeLessThan(RETRY_DELAY_MS - 5000);
    expect(await counter(metrics.webhookRequests, { outcome: 'rejected' })).toBeGreaterThan(rejectedBefore);
    expect(requestsTo('refused').filter((r) => r.headers['herald-attempt'] === '2')).toHaveLength(0); // the retry waits for its minute
    expectSigned(requestsTo('refused'), endpoint.secret);

    // Every request is logged; the failed one once (the newer events' requests are `delivered` entries).
    const log = await api('GET', `/webhooks/${endpoint.id}/deliveries?filter[outcome]=failed`);
    expect(log.status).toBe(200);
    expect(log.body.paging).toMatchObject({ total: 1, results: 1 });
    expect(log.body.data[0]).toMatchObject({
      outcome: 'failed', attempt: 1, status: 503, error: expect.stringContaining('HTTP 503'), events: 4, track_ids: refused, retry_at: expect.any(String),
    });
    expect(Date.parse(log.body.data[0].retry_at) - Date.parse(log.body.data[0].time)).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 1000);
    const byTrackId = await api('GET', `/webhooks/${endpoint.id}/deliveries?q=${refused[2]}`);
    expect(byTrackId.body.paging.total).toBe(1);
    expect(await herald.services.store.webhookRetries.countDocuments({ account: acme.account, endpointId: endpoint.id })).toBe(1);
    receiver.answer = () => 200;
  }, 120_000);
});
