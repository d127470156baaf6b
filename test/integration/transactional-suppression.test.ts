// The suppression list at send time: an address whose contact was unsubscribed through the API,
// or that the relay refused for good once, gets a track.mail.dropped event and no mail, while
// the other recipients of the same request get theirs.
import type { NewAccount } from '../../core/accounts/accounts';
import type { EventDoc } from '../../adapters/store/store';
import { batchEvents } from '../support/events';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type CallOptions } from '../support/http';
import { ledgerRowOf } from '../support/ledger';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald({ rejectRecipients: ['gone@example.org'] });
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const bearer = (key: string): CallOptions => ({ headers: { authorization: `Bearer ${key}` } });
const send = (emails: string[]) => callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
  ...bearer(acme.transactionalKey),
  json: { from: { email: 'shop@example.com' }, subject: 'News', content: { text: 'Hello' }, recipients: emails.map((email) => ({ to: { email } })) },
});

const eventsOf = (batchId: string, count: number) => batchEvents(herald.services.store, acme.account, batchId, count);
const byEmail = (events: EventDoc[]) => Object.fromEntries(events.map((e) => [e.email, e.track_type]));

it('drops a send to a contact unsubscribed through the API and sends the others', async () => {
  const contact = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/contacts`, { ...bearer(acme.apiKey), json: { email: 'Quit@Example.net' } });
  expect((await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/contacts/${contact.body.data.id}/unsubscribe`, bearer(acme.apiKey))).status).toBe(200);

  const before = herald.sink.received.length;
  const answer = await send(['quit@example.net', 'stay@example.net']);
  expect(answer.status).toBe(202);
  const events = await eventsOf(answer.headers.get('herald-batch-id')!, 2);
  expect(byEmail(events)).toEqual({ 'quit@example.net': 'track.mail.dropped', 'stay@example.net': 'track.mail.sent' });
  const mails = (await herald.sink.waitFor(before + 1)).slice(before);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(herald.sink.received.slice(before).flatMap((m) => m.rcptTo)).toEqual(['stay@example.net']);
  expect(mails).toHaveLength(1);
  const ledger = await ledgerRowOf(herald.services.store, { account: acme.account, email: 'quit@example.net' });
  expect(ledger).toMatchObject({ status: 'dropped' });
});

it('puts an address the relay refused for good on the list: the next send to it is dropped', async () => {
  const first = await send(['gone@example.org']);
  expect(byEmail(await eventsOf(first.headers.get('herald-batch-id')!, 1))).toEqual({ 'gone@example.org': 'track.mail.bounced' });
  // The suppression is written just after the bounce's ledger row (core/sending/message-loop.ts): wait for it, not for a moment.
  const suppression = await waitUntil('the suppression', () => herald.services.store.suppressions.findOne({ account: acme.account, email: 'gone@example.org' }));
  expect(suppression).toMatchObject({ reason: 'bounced' });

  const again = await send(['GONE@example.org', 'fine@example.net']);
  expect(byEmail(await eventsOf(again.headers.get('herald-batch-id')!, 2))).toEqual({ 'GONE@example.org': 'track.mail.dropped', 'fine@example.net': 'track.mail.sent' }); // matched without letter case, reported as given
  // Another account's list is its own.
  const other = await herald.newAccount();
  const theirs = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    ...bearer(other.transactionalKey),
    json: { from: { email: 'shop@example.com' }, subject: 'News', content: { text: 'Hello' }, recipients: [{ to: { email: 'gone@example.org' } }] },
  });
  const deadline = Date.now() + 30_000;
  let events: EventDoc[] = [];
  while (events.length === 0 && Date.now() < deadline) {
    events = await herald.services.store.events.find({ account: other.account, batch_id: theirs.headers.get('herald-batch-id')! }).toArray();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(events.map((e) => e.track_type)).toEqual(['track.mail.bounced']);
});
