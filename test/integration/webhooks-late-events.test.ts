// Events whose write lands after the delivery pass has read past their _ids (a write held up
// longer than the settle window, as on a stalled machine) still reach the endpoint, once: the
// writer records them (core/tracking/late-writes.ts), the pass delivers those it never got
// (core/webhooks/late-events.ts). A late write is made here by giving an event an _id, waiting
// until the pass has delivered a newer event (so its position is past that _id), then storing it.
import { ObjectId } from 'mongodb';
import type { NewAccount } from '../../core/accounts/accounts';
import { ledgerRow, LedgerWriter } from '../../core/sending/ledger';
import type { PlannedMessage } from '../../core/sending/plan';
import { buildEvent, recordEvents } from '../../core/tracking/events';
import { noteLateWrites } from '../../core/tracking/late-writes';
import { removeUnwantedLateRecords } from '../../core/webhooks/late-events';
import type { LedgerRowDoc, Store } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { syntheticEvents } from '../support/webhook-events';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
let receiver: WebhookReceiver;
let store: Store;

beforeAll(async () => {
  [herald, receiver] = await Promise.all([
    startTestHerald({ webhookTuning: { settleMs: 1000, idlePollMs: 200 } }),
    startWebhookReceiver(),
  ]);
  store = herald.services.store;
});
afterAll(async () => {
  await herald?.stop();
  await receiver?.close();
});

/** A new account with an endpoint on the receiver (told apart by a query), of these event types. */
async function accountWithEndpoint(query: string, events?: string[]) {
  const acme: NewAccount = await herald.newAccount();
  const created = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/webhooks`, {
    json: { url: `${receiver.url}?${query}`, ...(events ? { events } : {}) }, headers: { authorization: `Bearer ${acme.apiKey}` },
  });
  expect(created.status).toBe(201);
  return { account: acme.account };
}

const copiesOf = (query: string, trackId: string) =>
  receiver.requests.filter((r) => r.path.endsWith(`?${query}`)).flatMap((r) => r.events).filter((e) => e.track_id === trackId).length;

/** Stores an event now and waits for the endpoint to get it: the pass has then read past every _id made before it. */
async function deliverOneNow(query: string, account: string): Promise<void> {
  const [marker] = syntheticEvents(account, 1);
  await recordEvents(store, [marker]);
  await waitUntil('the marker event delivered', async () => copiesOf(query, marker.track_id) === 1, 60_000);
}

/**
 * Waits until the account's late-event records were dealt with: with one endpoint, removed once it
 * handled them (the test reads them first, so it can say what they held).
 */
async function lateRecordsHandled(account: string): Promise<void> {
  await waitUntil('the late records handled', async () => (await store.lateEvents.countDocuments({ account })) === 0, 60_000);
}

it('delivers, once, an event whose write landed after the pass read past its _id, and only of the endpoint types', async () => {
  const { account } = await accountWithEndpoint('late', ['track.mail.opened']);
  const [opened, clicked] = syntheticEvents(account, 2, ['track.mail.opened', 'track.mail.clicked']); // their _ids made now
  await deliverOneNow('late', account);

  await recordEvents(store, [opened, clicked]); // lands now, behind the pass

  await waitUntil('the late event delivered', async () => copiesOf('late', opened.track_id) === 1, 60_000);
  await lateRecordsHandled(account);
  expect(copiesOf('late', opened.track_id)).toBe(1);
  expect(copiesOf('late', clicked.track_id)).toBe(0);
});

it('does not deliver again an event recorded as late that the endpoint got in time', async () => {
  const { account } = await accountWithEndpoint('on-time');
  const [event] = syntheticEvents(account, 1);
  await recordEvents(store, [event]);
  await waitUntil('the event delivered', async () => copiesOf('on-time', event.track_id) === 1, 60_000);

  await noteLateWrites(store, [event], Date.now() + 60_000); // a writer that saw its write acknowledged long after

  await lateRecordsHandled(account);
  expect(copiesOf('on-time', event.track_id)).toBe(1);
});

it("delivers a dead attempt's late ledger write, found when the retry meets it", async () => {
  const { account } = await accountWithEndpoint('ledger');
  const message: PlannedMessage = {
    mailId: `${account}_late_1`, requestId: 'request-1', email: 'person@example.net', copiesTo: [], messageId: '<late-1@herald.test>',
    subject: {
      account, batch_id: `${account}_transactional_late`, mail_id: `${account}_late_1`, email: 'person@example.net',
      sent_timestamp: new Date(), tags: [], custom_args: {}, mta: 'herald.test',
    },
    raw: () => Buffer.from(''),
  };
  const rowOf = (): LedgerRowDoc => ledgerRow(message, 'sent', '250 queued', buildEvent('track.mail.sent', message.subject, new Date(), 'sent'));
  const deadAttempt = rowOf(); // its _id made now
  await deliverOneNow('ledger', account);
  await store.events.insertOne(deadAttempt); // landed behind the pass, and its writer died before it could tell

  await new LedgerWriter(store).record(rowOf()); // the retry: a duplicate, skipped

  await waitUntil('the dead attempt\'s event delivered', async () => copiesOf('ledger', deadAttempt.track_id) === 1, 60_000);
  await lateRecordsHandled(account);
  expect(await store.events.countDocuments({ _outcome_of: message.mailId })).toBe(1);
});

it('records, per account, the events of a write acknowledged too late for the smallest settle window, and not the others', async () => {
  const [a, b] = [`late-a-${Date.now()}`, `late-b-${Date.now()}`]; // no endpoint: no pass takes their records
  const old = [...syntheticEvents(a, 2, ['track.mail.opened'], 10_000), ...syntheticEvents(b, 1, ['track.mail.opened'], 10_000)];
  const fresh = syntheticEvents(a, 1);
  await recordEvents(store, [...old, ...fresh]);
  const recorded = async (account: string) => (await store.lateEvents.find({ account }).toArray()).map((r) => [r.eventIds.map(String).sort(), r.handledBy]);
  expect(await recorded(a)).toEqual([[old.slice(0, 2).map((e) => String(e._id)).sort(), []]]);
  expect(await recorded(b)).toEqual([[[String(old[2]._id)], []]]);
});

it('keeps late records a day; the sweeper removes older ones, and sooner those of an account without an enabled endpoint', async () => {
  const record = (account: string, ageS: number) => ({
    _id: new ObjectId(Math.floor(Date.now() / 1000) - ageS), account, eventIds: [], ackedAt: new Date(), handledBy: [],
  });
  const [old, unwanted, recent, kept] = [record('old-late', 2 * 86_400), record('old-late', 20 * 60), record('old-late', 60), record('kept-late', 20 * 60)];
  await store.lateEvents.insertMany([old, unwanted, recent, kept]);
  expect(await removeUnwantedLateRecords(store, ['kept-late'])).toBeGreaterThanOrEqual(2);
  const left = async (account: string) => (await store.lateEvents.find({ account }).toArray()).map((r) => String(r._id));
  expect(await left('old-late')).toEqual([String(recent._id)]);
  expect(await left('kept-late')).toEqual([String(kept._id)]); // its endpoint's pass has yet to take it
});
