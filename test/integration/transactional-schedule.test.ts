// launch_date, cancelling a batch and Idempotency-Key over HTTP, against the real stack: a
// scheduled request waits (nothing sent), a cancelled batch records its messages as dropped and
// sends nothing, and a retried request with the same key is answered as the first and starts
// nothing twice. (The month-long timer itself is in test/workflows, with time skipping.)
import type { NewAccount } from '../../core/accounts/accounts';
import { batchEvents } from '../support/events';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';
import { ledgerCount } from '../support/ledger';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const body = (to: string, extra: Json = {}) => ({ from: { email: 'shop@example.com' }, subject: 'Later', content: { text: 'Hi' }, recipients: [{ to: { email: to } }], ...extra });
const send = (json: Json, headers: Record<string, string> = {}) =>
  callHerald(herald.baseUrl, 'POST', '/v1/mail/send', { headers: { authorization: `Bearer ${acme.transactionalKey}`, ...headers }, json });
const cancel = (batchId: string, key = acme.transactionalKey) =>
  callHerald(herald.baseUrl, 'DELETE', `/v1/mail/batches/${encodeURIComponent(batchId)}`, { headers: { authorization: `Bearer ${key}` } });

const eventsOf = (batchId: string, count: number) => batchEvents(herald.services.store, acme.account, batchId, count);
const delivered = (to: string) => herald.sink.received.filter((m) => m.rcptTo.includes(to)).length;

it('holds a request with a future launch_date, and a cancelled batch sends nothing and records its messages as dropped', async () => {
  const inAnHour = new Date(Date.now() + 3600_000).toISOString().replace('Z', '+00:00');
  const first = await send(body('later1@example.net', { launch_date: inAnHour, batch_code: 'Black-Friday' }));
  const second = await send(body('later2@example.net', { launch_date: inAnHour, batch_code: 'black friday' }));
  expect([first.status, second.status]).toEqual([202, 202]);
  const batchId = `${acme.account}_transactional_blackfriday`;
  expect(first.headers.get('herald-batch-id')).toBe(batchId);
  const stored = await herald.services.store.sendRequests.find({ account: acme.account, batchId }).toArray();
  expect(stored.map((r) => r.launchAt?.toISOString())).toEqual([new Date(inAnHour).toISOString(), new Date(inAnHour).toISOString()]);

  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(delivered('later1@example.net') + delivered('later2@example.net')).toBe(0); // waiting for its time

  const answer = await cancel(batchId);
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({ success: true, data: { batch_id: batchId, requests: 2 } });
  const events = await eventsOf(batchId, 2);
  expect(events.map((e) => [e.email, e.track_type]).sort()).toEqual([['later1@example.net', 'track.mail.dropped'], ['later2@example.net', 'track.mail.dropped']]);
  expect(await ledgerCount(herald.services.store, { account: acme.account, status: 'dropped', relayResponse: 'cancelled' })).toBe(2);
  expect(delivered('later1@example.net') + delivered('later2@example.net')).toBe(0);
});

it('sends at once with a launch_date in the past, and refuses dates that are not real instants', async () => {
  const past = await send(body('past@example.net', { launch_date: '2020-01-01T10:00:00+0100' }));
  expect(past.status).toBe(202);
  await eventsOf(past.headers.get('herald-batch-id')!, 1);
  expect(delivered('past@example.net')).toBe(1);

  for (const bad of ['2026-02-30T10:00:00Z', '2026-12-01T10:00:00', '2026-12-01', 'tomorrow']) {
    const refused = await send(body('never@example.net', { launch_date: bad }));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'validation_error', errors: { launch_date: expect.any(String) } });
  }
});

it('cancels nothing for a batch id of another account or one that does not exist', async () => {
  const other = await herald.newAccount();
  const theirs = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: { authorization: `Bearer ${other.transactionalKey}` }, json: body('theirs@example.net', { launch_date: new Date(Date.now() + 3600_000).toISOString() }),
  });
  const theirBatch = theirs.headers.get('herald-batch-id')!;
  expect((await cancel(theirBatch)).body.data).toEqual({ batch_id: theirBatch, requests: 0 });
  expect((await cancel(`${acme.account}_transactional_nosuchbatch`)).body.data.requests).toBe(0);
  expect((await cancel('x', 'not-a-key')).status).toBe(401);
  // Theirs is still waiting: cancelled by its own account only.
  expect((await cancel(theirBatch, other.transactionalKey)).body.data.requests).toBe(1);
});

it('answers a retry with the same Idempotency-Key as the first and starts nothing twice', async () => {
  const first = await send(body('once@example.net'), { 'idempotency-key': 'order-1001' });
  const retry = await send(body('once@example.net'), { 'idempotency-key': 'order-1001' });
  expect([first.status, retry.status]).toEqual([202, 202]);
  expect(retry.headers.get('herald-batch-id')).toBe(first.headers.get('herald-batch-id'));
  expect(retry.body).toEqual({ success: true, data: '' });
  await eventsOf(first.headers.get('herald-batch-id')!, 1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(delivered('once@example.net')).toBe(1);
  expect(await herald.services.store.sendRequests.countDocuments({ account: acme.account, payload: { $regex: 'once@example.net' } })).toBe(1);

  const reused = await send(body('someone-else@example.net'), { 'idempotency-key': 'order-1001' });
  expect(reused.status).toBe(400);
  expect(reused.body.error).toMatchObject({ type: 'bad_request', message: expect.stringContaining('Idempotency-Key') });
  const fresh = await send(body('once@example.net'), { 'idempotency-key': 'order-1002' });
  expect(fresh.headers.get('herald-batch-id')).not.toBe(first.headers.get('herald-batch-id'));
});
