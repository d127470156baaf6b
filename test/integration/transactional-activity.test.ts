// At-least-once activities: a retried send skips what the ledger says was sent, sends the rest
// with the same Message-ID, and mends events lost to a crash after the ledger write.
// Real store and a real SMTP sink; the activity runs in the SDK's activity test environment.
import { MockActivityEnvironment } from '@temporalio/testing';
import { createTransactionalActivities } from '../../activities/transactional';
import { newId } from '../../core/ids';
import { connectStore, type Store } from '../../core/store';
import { createRelayTransport } from '../../core/transport';
import { toStoredFields } from '../../core/transactional/request';
import { startSmtpSink } from '../support/smtp-sink';

let store: Store;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let activities: ReturnType<typeof createTransactionalActivities>;
let transport: ReturnType<typeof createRelayTransport>;

beforeAll(async () => {
  store = await connectStore(process.env.MONGODB_URI!.replace(/\/[^/?]*(\?|$)/, '/$1'), `herald_act_${newId().slice(0, 8)}`);
  sink = await startSmtpSink();
  transport = createRelayTransport(sink.url);
  activities = createTransactionalActivities({ store, transport, mtaHost: 'mx.test' });
});

afterAll(async () => {
  transport.close();
  await sink.close();
  await store.db.dropDatabase();
  await store.close();
});

const attempt = (n: number) => new MockActivityEnvironment({ attempt: n });

it('on a retry, sends only what the ledger lacks, with the same Message-ID, and restores lost events', async () => {
  const requestId = newId();
  await store.sendRequests.insertOne({
    _id: requestId, acceptedAt: new Date(),
    ...toStoredFields({
      account: 'acme', source: 'http', body: {
        from: { email: 'shop@example.com' }, subject: 'Receipt', content: { text: 'thanks' },
        recipients: [{ to: { email: 'one@example.net' } }, { to: { email: 'two@example.net' } }],
      },
    }),
  });
  const input = { account: 'acme', requestId };

  expect(await attempt(1).run(activities.sendAcceptedRequest, input)).toEqual({ sent: 2, failed: 0 });
  await sink.waitFor(2);
  const rows = await store.messages.find({ account: 'acme', requestId }).toArray();
  expect(rows).toHaveLength(2);
  const trackIds = (await store.events.find({ account: 'acme' }).toArray()).map((e) => e.track_id).sort();
  expect(trackIds).toHaveLength(2);

  // A crash after the first ledger write: its event never reached the events collection,
  // and the second message was never sent at all.
  const [first, second] = rows;
  await store.events.deleteMany({ mail_id: { $in: [first._id, second._id] } });
  await store.messages.deleteOne({ _id: second._id });

  expect(await attempt(2).run(activities.sendAcceptedRequest, input)).toEqual({ sent: 2, failed: 0 });
  const mails = await sink.waitFor(3);
  expect(sink.received).toHaveLength(3); // only the missing one was sent again
  expect(mails[2].rcptTo).toEqual([second.email]);
  expect(mails[2].parsed.messageId).toBe(second.messageId);
  expect((await store.events.find({ account: 'acme' }).toArray()).map((e) => e.track_id).sort()).toEqual(trackIds);

  // A third run finds everything done: nothing sent, nothing duplicated.
  expect(await attempt(3).run(activities.sendAcceptedRequest, input)).toEqual({ sent: 2, failed: 0 });
  expect(sink.received).toHaveLength(3);
  expect(await store.events.countDocuments({ account: 'acme' })).toBe(2);
});
