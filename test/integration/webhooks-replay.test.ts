// The deliveries log of every request, the discarded events and their replay, end to end with a
// real HTTP receiver: a receiver that answers 500 gets the POST and its retry (the retry's minute
// shortened to a second), the events are listed as discarded with the payload the receiver got;
// a replay naming an unknown track_id is refused with nothing sent, one while the receiver still
// fails is logged and keeps them, and once it is fixed a replay delivers them in one request
// signed with the endpoint's current secret (checked with verifySignature) and they leave the list.
import type { NewAccount } from '../../core/accounts/accounts';
import { verifySignature } from '../../core/webhooks/signature';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type CallOptions, type Json } from '../support/http';
import { rewindCursor, storeSyntheticEvents } from '../support/webhook-events';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
let receiver: WebhookReceiver;
let acme: NewAccount;

beforeAll(async () => {
  [herald, receiver] = await Promise.all([
    startTestHerald({ webhookTuning: { retryDelayMs: 1000, settleMs: 1000, idlePollMs: 200 } }),
    startWebhookReceiver(),
  ]);
  acme = await herald.newAccount();
});
afterAll(async () => {
  await herald?.stop();
  await receiver?.close();
});

const api = (method: string, path: string, options: CallOptions = {}) =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}${path}`, { ...options, headers: { authorization: `Bearer ${acme.apiKey}` } });
const requestsTo = (query: string) => receiver.requests.filter((r) => r.path.endsWith(`?${query}`));

it('lists discarded events with their payloads, refuses unknown ones, and replays them signed once the receiver is fixed', async () => {
  const created = await api('POST', '/webhooks', { json: { url: `${receiver.url}?replay` } });
  expect(created.status).toBe(201);
  const { id, secret: firstSecret } = created.body.data;
  let broken = true;
  receiver.answer = (request) => (request.path.endsWith('?replay') && broken ? 500 : 200);

  // Stored 20 s in the past, behind the endpoint's cursor, then the cursor set back before them: the
  // pass finds all three at once, in one request (fresh events may straddle a second or a read).
  const trackIds = await storeSyntheticEvents(herald.services.store, acme.account, 3, ['track.mail.opened', 'track.mail.clicked'], 20_000);
  await rewindCursor(herald.services.store, { account: acme.account, id });
  const discarded = async () => (await api('GET', `/webhooks/${id}/discarded`)).body;
  await waitUntil('the events discarded', async () => (await discarded()).paging.total === 3, 60_000);
  expect(requestsTo('replay').map((r) => r.headers['herald-attempt'])).toEqual(['1', '2']);
  const posted = new Map<string, Json>(requestsTo('replay')[0].events.map((e) => [e.track_id, e]));

  const list = await discarded();
  expect(list.data.map((e: Json) => e.track_id).sort()).toEqual([...trackIds].sort());
  for (const entry of list.data) {
    expect(entry).toEqual({
      track_id: entry.track_id, type: posted.get(entry.track_id).track_type, time: posted.get(entry.track_id).timestamp,
      discarded: expect.any(String), payload: posted.get(entry.track_id),
    });
  }
  const log = await api('GET', `/webhooks/${id}/deliveries?sortdir=asc`);
  expect(log.body.data.map((e: Json) => [e.outcome, e.attempt, e.status, e.events])).toEqual([['failed', 1, 500, 3], ['discarded', 2, 500, 3]]);

  // An unknown track_id (or one of another endpoint): refused, nothing sent.
  const before = requestsTo('replay').length;
  const unknown = await api('POST', `/webhooks/${id}/replay`, { json: { track_ids: [trackIds[0], 'no-such-event'] } });
  expect([unknown.status, unknown.body.error.type]).toEqual([400, 'VALIDATION_ERROR']);
  expect(unknown.body.error.validationErrors.track_ids).toContain('no-such-event');
  expect(unknown.body.error.validationErrors.track_ids).not.toContain(trackIds[0]);
  for (const body of [{}, { track_ids: [] }, { track_ids: Array.from({ length: 501 }, (_, i) => `t${i}`) }]) {
    expect((await api('POST', `/webhooks/${id}/replay`, { json: body })).status).toBe(400);
  }

  // Still failing: logged as a failed replay, the events stay discarded.
  const stillFailing = await api('POST', `/webhooks/${id}/replay`, { json: { track_ids: trackIds } });
  expect(stillFailing.status).toBe(200);
  expect(stillFailing.body.data).toEqual({ delivered: false, status: 500, error: expect.stringContaining('HTTP 500'), events: 3 });
  expect(requestsTo('replay')).toHaveLength(before + 1);
  expect((await discarded()).paging.total).toBe(3);

  // Fixed, with a new secret: two of them replayed in one request signed with it.
  broken = false;
  const { secret } = (await api('POST', `/webhooks/${id}/rotate-secret`)).body.data;
  const chosen = [trackIds[2], trackIds[0]];
  const replayed = await api('POST', `/webhooks/${id}/replay`, { json: { track_ids: chosen } });
  expect(replayed.body.data).toEqual({ delivered: true, status: 200, error: null, events: 2 });
  const request = requestsTo('replay').at(-1)!;
  expect(requestsTo('replay')).toHaveLength(before + 2);
  expect(request.headers['herald-attempt']).toBe('replay');
  expect(verifySignature(secret, request.rawBody, request.headers['herald-signature'] as string)).toBe(true);
  expect(verifySignature(firstSecret, request.rawBody, request.headers['herald-signature'] as string)).toBe(false);
  expect(request.events).toEqual([posted.get(trackIds[0]), posted.get(trackIds[2])]); // event order, as deliveries send them
  const left = await discarded();
  expect(left.data.map((e: Json) => e.track_id)).toEqual([trackIds[1]]);

  const entries = (await api('GET', `/webhooks/${id}/deliveries`)).body.data;
  expect(entries.slice(0, 2).map((e: Json) => [e.outcome, e.replay, e.status, e.events])).toEqual([['replayed', true, 200, 2], ['failed', true, 500, 3]]);
  expect((await api('GET', `/webhooks/${id}/deliveries?filter[outcome]=replayed`)).body.paging.total).toBe(1);

  // Successful deliveries are logged too: one entry per request, with its answer and event count
  // (two fresh events may go in one request or two, as their _ids' seconds and writes fall).
  const fresh = await storeSyntheticEvents(herald.services.store, acme.account, 2);
  const deliveredEntries = async () => (await api('GET', `/webhooks/${id}/deliveries?filter[outcome]=delivered`)).body.data as Json[];
  await waitUntil('the delivered entries', async () => (await deliveredEntries()).flatMap((e) => e.track_ids).length >= 2, 30_000);
  const delivered = await deliveredEntries();
  expect(delivered.flatMap((e) => e.track_ids).sort()).toEqual([...fresh].sort());
  for (const entry of delivered) {
    expect(entry).toMatchObject({ outcome: 'delivered', attempt: 1, status: 200, error: null, events: entry.track_ids.length });
  }

  // A disabled endpoint replays nothing.
  await api('PUT', `/webhooks/${id}`, { json: { enabled: false } });
  const sent = receiver.requests.length;
  const disabled = await api('POST', `/webhooks/${id}/replay`, { json: { track_ids: [trackIds[1]] } });
  expect([disabled.status, disabled.body.error.type]).toEqual([400, 'BAD_REQUEST']);
  expect(disabled.body.error.userMessage).toMatch(/disabled/);
  expect(receiver.requests).toHaveLength(sent);
  expect((await discarded()).paging.total).toBe(1);
}, 120_000);

it('keeps each endpoint\'s discarded events to itself', async () => {
  const other = await api('POST', '/webhooks', { json: { url: `${receiver.url}?other` } });
  const stranger = await herald.newAccount();
  const theirs = await callHerald(herald.baseUrl, 'GET', `/v2/${stranger.account}/webhooks/${other.body.data.id}/discarded`, {
    headers: { authorization: `Bearer ${stranger.apiKey}` },
  });
  expect(theirs.status).toBe(404);
  const first = (await api('GET', '/webhooks')).body.data[0];
  const [kept] = (await api('GET', `/webhooks/${first.id}/discarded`)).body.data;
  const replay = await api('POST', `/webhooks/${other.body.data.id}/replay`, { json: { track_ids: [kept.track_id] } });
  expect([replay.status, replay.body.error.type]).toEqual([400, 'VALIDATION_ERROR']);
  expect(requestsTo('other')).toHaveLength(0);
}, 60_000);
