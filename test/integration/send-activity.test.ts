// The send activities, at least once: a retried send skips what the ledger says was sent, sends
// the rest with the same Message-ID, and mends events lost to a crash after the ledger write;
// deferred recipients, relay trouble, cancellation (of the attempt and of a batch), a missing
// request record, several requests in one attempt.
// Real store and a real SMTP sink, reached through the relay thread the worker uses; the activity
// runs in the SDK's activity test environment.
import { MockActivityEnvironment } from '@temporalio/testing';
import { testTemporalLogger } from '../support/temporal-logs';
import { createSendActivities } from '../../activities/sending';
import { SEND_CONCURRENCY } from '../../core/sending/message-loop';
import { newId } from '../../core/shared/ids';
import { connectStore, type Store } from '../../adapters/store/store';
import { createThreadedRelay } from '../../adapters/relay/thread';
import type { RelaySender } from '../../adapters/relay/transport';
import { toStoredFields, type Recipient } from '../../core/transactional/request';
import type { QueuedSend } from '../../adapters/temporal/contracts';
import { startSmtpSink } from '../support/smtp-sink';
import { ledgerCount, ledgerRows } from '../support/ledger';

let store: Store;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let activities: ReturnType<typeof createSendActivities>;
let transport: RelaySender;

beforeAll(async () => {
  store = await connectStore(process.env.MONGODB_URI!.replace(/\/[^/?]*(\?|$)/, '/$1'), `herald_act_${newId().slice(0, 8)}`);
  sink = await startSmtpSink();
  transport = createThreadedRelay([{ name: 'default', url: sink.url }]);
  activities = createSendActivities({ store, transport, mtaHost: 'mx.test', publicUrl: 'http://herald.test' });
});

afterAll(async () => {
  await transport.close();
  await sink.close();
  await store.db.dropDatabase();
  await store.close();
});

const attempt = (n: number) => new MockActivityEnvironment({ attempt: n }, { logger: testTemporalLogger });

it('on a retry, sends only what the ledger lacks, with the same Message-ID, each outcome one event', async () => {
  const requestId = newId();
  await store.sendRequests.insertOne({
    _id: requestId, acceptedAt: new Date(), batchId: `acme_transactional_${requestId}`,
    ...toStoredFields({
      account: 'acme', source: 'http', body: {
        from: { email: 'shop@example.com' }, subject: 'Receipt', content: { text: 'thanks' },
        recipients: [{ to: { email: 'one@example.net' } }, { to: { email: 'two@example.net' } }],
      },
    }),
  });
  const input = { account: 'acme', requests: [{ requestId, batchId: `acme_transactional_${requestId}` }] };

  expect(await attempt(1).run(activities.sendRequests, input)).toEqual({ sent: 2, failed: 0, deferred: [] });
  await sink.waitFor(2);
  const rows = await ledgerRows(store, { account: 'acme', requestId });
  expect(rows).toHaveLength(2);
  const trackIds = (await store.events.find({ account: 'acme' }).toArray()).map((e) => e.track_id).sort();
  expect(trackIds).toHaveLength(2);

  // A crash before the second ledger write: the second message's outcome was never recorded
  // (the ledger row is its event: one record, nothing else to restore).
  const [, second] = rows;
  await store.ledger.deleteOne({ _outcome_of: second._id });

  expect(await attempt(2).run(activities.sendRequests, input)).toEqual({ sent: 2, failed: 0, deferred: [] });
  const mails = await sink.waitFor(3);
  expect(sink.received).toHaveLength(3); // only the missing one was sent again
  expect(mails[2].rcptTo).toEqual([second.email]);
  expect(mails[2].parsed.messageId).toBe(second.messageId);
  expect((await store.events.find({ account: 'acme' }).toArray()).map((e) => e.track_id).sort()).toEqual(trackIds);

  // A third run finds everything done: nothing sent, nothing duplicated.
  expect(await attempt(3).run(activities.sendRequests, input)).toEqual({ sent: 2, failed: 0, deferred: [] });
  expect(sink.received).toHaveLength(3);
  expect(await store.events.countDocuments({ account: 'acme' })).toBe(2);
});

/** A request of `emails`, stored as the API would, for account `acme`. */
async function storedRequest(emails: string[], extra: Partial<Recipient> = {}): Promise<{ account: string; requests: QueuedSend[]; requestId: string }> {
  const requestId = newId();
  await store.sendRequests.insertOne({
    _id: requestId, acceptedAt: new Date(), batchId: `acme_transactional_${requestId}`,
    ...toStoredFields({
      account: 'acme', source: 'http', body: {
        from: { email: 'shop@example.com' }, subject: 'Receipt', content: { text: 'thanks' }, recipients: emails.map((email) => ({ to: { email }, ...extra })),
      },
    }),
  });
  return { account: 'acme', requests: [{ requestId, batchId: `acme_transactional_${requestId}` }], requestId };
}

/** A sink of its own with these options, a transport to it and activities over both; closed after `use`. */
async function withRelay(options: Parameters<typeof startSmtpSink>[0], use: (relay: Awaited<ReturnType<typeof startSmtpSink>>, acts: typeof activities) => Promise<void>, auth = false) {
  const relay = await startSmtpSink(options);
  const relayTransport = createThreadedRelay([{ name: 'default', url: auth ? relay.url.replace('smtp://', 'smtp://relay:secret@') : relay.url }]);
  try {
    await use(relay, createSendActivities({ store, transport: relayTransport, mtaHost: 'mx.test', publicUrl: 'http://herald.test' }));
  } finally {
    await relayTransport.close();
    await relay.close();
  }
}

it('sends the others when the relay defers one recipient, and that one on the next attempt', async () => {
  const deferRecipients = ['full@example.net'];
  await withRelay({ deferRecipients }, async (relay, acts) => {
    const input = await storedRequest(['a@example.net', 'full@example.net', 'b@example.net']);
    expect(await attempt(1).run(acts.sendRequests, input)).toEqual({ sent: 2, failed: 0, deferred: [input.requestId] });
    expect((await relay.waitFor(2)).map((m) => m.rcptTo[0]).sort()).toEqual(['a@example.net', 'b@example.net']);
    expect(await store.events.countDocuments({ account: 'acme', email: 'full@example.net' })).toBe(0); // no bounce: it waits

    deferRecipients.length = 0; // the mailbox has room again
    expect(await attempt(2).run(acts.sendRequests, input)).toEqual({ sent: 3, failed: 0, deferred: [] });
    expect(relay.received.map((m) => m.rcptTo[0])).toEqual(expect.arrayContaining(['full@example.net']));
    expect(relay.received).toHaveLength(3);
  });
});

it('retries a relay that refuses its credentials (535) instead of bouncing anything', async () => {
  await withRelay({ refuseAuth: true }, async (relay, acts) => {
    const input = await storedRequest(['c@example.net', 'd@example.net']);
    await expect(attempt(1).run(acts.sendRequests, input)).rejects.toMatchObject({ code: 'EAUTH' });
    expect(relay.received).toHaveLength(0);
    expect(await ledgerCount(store, { account: 'acme', requestId: input.requestId })).toBe(0);
    expect(await store.events.countDocuments({ account: 'acme', email: { $in: ['c@example.net', 'd@example.net'] } })).toBe(0);
  }, true);
});

it('stops sending before the next message once the attempt is cancelled', async () => {
  await withRelay({ delayMs: 40 }, async (relay, acts) => {
    const emails = Array.from({ length: SEND_CONCURRENCY + 60 }, (_, i) => `slow${i}@example.net`);
    const input = await storedRequest(emails);
    const env = attempt(1);
    const running = env.run(acts.sendRequests, input);
    await relay.waitFor(3);
    env.cancel();
    await expect(running).rejects.toMatchObject({ name: 'CancelledFailure' });
    const reached = relay.received.length;
    await new Promise((resolve) => setTimeout(resolve, 500)); // nothing more arrives after the stop
    expect(relay.received.length).toBe(reached);
    expect(reached).toBeLessThan(emails.length);
    expect(reached).toBeLessThanOrEqual(3 + SEND_CONCURRENCY); // the messages already on their way when it was cancelled
    expect(await ledgerCount(store, { account: 'acme', requestId: input.requestId, status: 'sent' })).toBeLessThanOrEqual(reached);
  });
});

it('sends the messages of several requests in one attempt, concurrently', async () => {
  const first = await storedRequest(['m1@example.net', 'm2@example.net']);
  const second = await storedRequest(['m3@example.net']);
  const before = sink.received.length;
  const outcome = await attempt(1).run(activities.sendRequests, { account: 'acme', requests: [...first.requests, ...second.requests] });
  expect(outcome).toEqual({ sent: 3, failed: 0, deferred: [] });
  const mails = (await sink.waitFor(before + 3)).slice(before);
  expect(mails.map((m) => m.rcptTo[0]).sort()).toEqual(['m1@example.net', 'm2@example.net', 'm3@example.net']);
  const rows = await ledgerRows(store, { requestId: { $in: [first.requestId, second.requestId] } });
  expect(rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
  // Each copy carries its own Message-ID, the one in the ledger.
  for (const row of rows) expect(mails.find((m) => m.rcptTo[0] === row.email)!.parsed.messageId).toBe(row.messageId);
});

it('drops what a cancelled batch has not sent, with a dropped event each', async () => {
  const input = await storedRequest(['x1@example.net', 'x2@example.net']);
  await store.sendRequests.updateOne({ _id: input.requestId }, { $set: { cancelledAt: new Date() } });
  const before = sink.received.length;
  expect(await attempt(1).run(activities.sendRequests, input)).toEqual({ sent: 0, failed: 2, deferred: [] });
  const events = await store.events.find({ account: 'acme', email: { $in: ['x1@example.net', 'x2@example.net'] } }).toArray();
  expect(events.map((e) => e.track_type)).toEqual(['track.mail.dropped', 'track.mail.dropped']);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(sink.received.length).toBe(before);
});

it('records a soft bounce for a request whose record is gone, and sends nothing', async () => {
  const before = sink.received.length;
  const requests = [{ requestId: newId(), batchId: 'acme_transactional_lost' }];
  expect(await attempt(1).run(activities.sendRequests, { account: 'acme', requests })).toEqual({ sent: 0, failed: 1, deferred: [] });
  const [event] = await store.events.find({ account: 'acme', batch_id: 'acme_transactional_lost' }).toArray();
  expect(event).toMatchObject({ track_type: 'track.mail.bounced', bounce_type: 'soft', message: expect.stringContaining(requests[0].requestId) });
  expect(sink.received.length).toBe(before);
  // Recorded once, however often the attempt runs.
  await attempt(2).run(activities.sendRequests, { account: 'acme', requests });
  expect(await store.events.countDocuments({ account: 'acme', batch_id: 'acme_transactional_lost' })).toBe(1);
});

it('leaves a suppressed cc out of the envelope while the to address gets its copy', async () => {
  await store.suppressions.insertOne({ _id: 'acme:gone@example.net', account: 'acme', email: 'gone@example.net', reason: 'bounced', created: new Date() });
  const input = await storedRequest(['kept@example.net'], { cc: [{ email: 'gone@example.net' }, { email: 'here@example.net' }] });
  const before = sink.received.length;
  expect(await attempt(1).run(activities.sendRequests, input)).toEqual({ sent: 1, failed: 0, deferred: [] });
  const [mail] = (await sink.waitFor(before + 1)).slice(before);
  expect(mail.rcptTo.sort()).toEqual(['here@example.net', 'kept@example.net']);
});

it('fails the messages of a request whose content cannot be built, and sends the others of the attempt', async () => {
  const good = await storedRequest(['fine@example.net']);
  // Stored as no API would accept it (a malformed template): as a record damaged in the store would be.
  const badId = newId();
  await store.sendRequests.insertOne({
    _id: badId, acceptedAt: new Date(), batchId: `acme_transactional_${badId}`,
    ...toStoredFields({
      account: 'acme', source: 'http', body: {
        from: { email: 'shop@example.com' }, subject: 'Hi ${', content: { text: 'x' }, recipients: [{ to: { email: 'broken1@example.net' } }, { to: { email: 'broken2@example.net' } }],
      },
    }),
  });
  const before = sink.received.length;
  const outcome = await attempt(1).run(activities.sendRequests, {
    account: 'acme', requests: [{ requestId: badId, batchId: `acme_transactional_${badId}` }, ...good.requests],
  });
  expect(outcome).toEqual({ sent: 1, failed: 2, deferred: [] });
  expect((await sink.waitFor(before + 1)).slice(before).map((m) => m.rcptTo[0])).toEqual(['fine@example.net']);
  const bounces = await store.events.find({ account: 'acme', email: { $in: ['broken1@example.net', 'broken2@example.net'] } }).toArray();
  expect(bounces.map((e) => [e.track_type, e.bounce_type])).toEqual([['track.mail.bounced', 'soft'], ['track.mail.bounced', 'soft']]);
  expect(String(bounces[0].message)).toMatch(/could not be built/);
  // Not the addresses' fault: they stay off the suppression list.
  expect(await store.suppressions.countDocuments({ account: 'acme', email: { $in: ['broken1@example.net', 'broken2@example.net'] } })).toBe(0);
});
