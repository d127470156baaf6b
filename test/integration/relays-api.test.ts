// GET /v2/{account}/relays on a Herald started from a relays file: the worker's leases give each
// relay its state, workers and counts (a real send through POST /v1/mail/send counted), a lease
// that disagrees makes a relay "partly down", a relay URL's credentials never show, an account sees
// neither another account's name nor the relays reserved to it, a provider's webhook request
// (Postmark) becomes its "last report", and a user without account:list is refused.
import { createUser } from '../../core/accounts/users';
import { issueKey } from '../../core/accounts/keys';
import type { NewAccount } from '../../core/accounts/accounts';
import { basicAuth } from '../../bench/feedback-signing';
import type { RelayLeaseDoc } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { sendMessages } from '../support/sent-messages';

const POSTMARK = { username: 'herald', password: 'postmark-password-1' };
const MAILGUN_KEY = 'mailgun-signing-key-never-shown';
let herald: TestHerald;
let acme: NewAccount;
let globex: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald({
    relaysFile: (sinkUrl) => ({
      relays: [
        { name: 'globex-only', url: 'smtp://relay-g.example:587', accounts: ['globex'] },
        // The sink, logged in to with a user and password that must never show.
        { name: 'main', url: sinkUrl.replace('smtp://', 'smtp://user:secret@'), accounts: ['acme', 'globex'], streams: ['transactional'], ratePerSecond: 50, maxConnections: 3 },
        { name: 'fallback', url: 'smtps://fallback.example:465', recipientDomains: ['example.org'] },
      ],
      // No bounce mailbox: a worker would try to read it (its host is shown as test/unit/feedback-sources.test.ts checks).
      feedback: { postmark: POSTMARK, mailgun: { signingKey: MAILGUN_KEY } },
    }),
  });
  [acme, globex] = [await herald.newAccount('acme'), await herald.newAccount('globex')];
});
afterAll(() => herald?.stop());

const relays = (account: NewAccount, key = account.apiKey) =>
  callHerald(herald.baseUrl, 'GET', `/v2/${account.account}/relays`, { headers: { authorization: `Bearer ${key}` } });

/** Reads the relays until `done` holds of the answer (the leases are renewed every second). */
async function relaysWhen(done: (data: RelaysData) => boolean): Promise<RelaysData> {
  for (const deadline = Date.now() + 5000; ;) {
    const answer = await relays(acme);
    expect(answer.status).toBe(200);
    if (done(answer.body.data) || Date.now() > deadline) return answer.body.data;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
interface RelayData { name: string; state: string; workers: number; counts: Record<string, number>; conditions: Record<string, string[]> }
interface RelaysData { relays: RelayData[]; feedback: Array<{ provider: string; lastReportAt: string | null }>; mailbox: object }
const main = (data: RelaysData) => data.relays.find((r) => r.name === 'main')!;

it('lists the account\'s relays in file order, up, with the counts of a real send; never a credential nor another account\'s name', async () => {
  const sinkPort = new URL(herald.sink.url).port;
  const before = await relaysWhen((data) => main(data).workers === 1);
  expect(before.relays).toEqual([
    {
      name: 'main', conditions: { streams: ['transactional'], accounts: ['acme'] }, ratePerSecond: 50, maxConnections: 3,
      host: `smtp://127.0.0.1:${sinkPort}`, state: 'up', counts: { sent: 0, deferred: 0, failed: 0, trouble: 0 }, workers: 1,
    },
    {
      name: 'fallback', conditions: { recipientDomains: ['example.org'] }, maxConnections: 5,
      host: 'smtps://fallback.example:465', state: 'up', counts: { sent: 0, deferred: 0, failed: 0, trouble: 0 }, workers: 1,
    },
  ]);

  await sendMessages(herald, acme, ['buyer@example.net']);
  const after = await relaysWhen((data) => main(data).counts.sent === 1);
  expect(main(after).counts).toEqual({ sent: 1, deferred: 0, failed: 0, trouble: 0 });

  const text = JSON.stringify((await relays(acme)).body);
  for (const secret of ['secret', 'user:', POSTMARK.password, MAILGUN_KEY, 'globex']) expect(text).not.toContain(secret);

  // Globex sees its own relay and its own name, not acme's.
  const seen = (await relays(globex)).body.data as RelaysData;
  expect(seen.relays.map((r) => [r.name, r.conditions.accounts])).toEqual([['globex-only', ['globex']], ['main', ['globex']], ['fallback', undefined]]);
  expect(JSON.stringify(seen)).not.toContain('acme');
});

it('is "partly down" when a worker\'s lease says down while another says up, and sums their counts', async () => {
  await herald.services.store.relayLeases.insertOne({
    _id: 'main:another-worker', relay: 'main', process: 'another-worker', expiresAt: new Date(Date.now() + 60_000), up: false,
    counts: { sent: 4, deferred: 1, failed: 2, trouble: 0 },
  } as RelayLeaseDoc); // as a worker writes it (fields this test does not need left out)
  try {
    const data = await relaysWhen((d) => main(d).workers === 2);
    expect(main(data)).toMatchObject({ state: 'partly down', workers: 2, counts: { sent: 5, deferred: 1, failed: 2, trouble: 0 } });
    // An expired lease is a worker gone: not counted.
    await herald.services.store.relayLeases.updateOne({ _id: 'main:another-worker' }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect(main(await relaysWhen((d) => main(d).workers === 1))).toMatchObject({ state: 'up', workers: 1 });
  } finally {
    await herald.services.store.relayLeases.deleteOne({ _id: 'main:another-worker' });
  }
});

it('shows each feedback source\'s URL, and a provider\'s last report once its webhook was called', async () => {
  const publicUrl = herald.herald.config.publicUrl;
  const before = (await relays(acme)).body.data;
  expect(before.feedback).toEqual([
    { provider: 'ses', configured: false, url: `${publicUrl}/v1/feedback/ses`, lastReportAt: null, lastOutcome: null },
    { provider: 'sendgrid', configured: false, url: `${publicUrl}/v1/feedback/sendgrid`, lastReportAt: null, lastOutcome: null },
    { provider: 'mailgun', configured: true, url: `${publicUrl}/v1/feedback/mailgun`, lastReportAt: null, lastOutcome: null },
    { provider: 'postmark', configured: true, url: `${publicUrl}/v1/feedback/postmark`, lastReportAt: null, lastOutcome: null },
  ]);
  expect(before.mailbox).toEqual({ configured: false, host: null, lastReadAt: null, lastReportAt: null });

  const [sent] = (await sendMessages(herald, acme, ['gone@example.net'])).values();
  const started = Date.now();
  const report = await fetch(`${herald.baseUrl}/v1/feedback/postmark`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basicAuth(POSTMARK.username, POSTMARK.password) },
    body: JSON.stringify({
      RecordType: 'Bounce', ID: 7, Type: 'HardBounce', TypeCode: 1, Email: sent.email, Metadata: { 'herald-mail-id': sent.mailId },
      Description: 'Unknown user', Details: 'smtp;550 5.1.1 unknown user', BouncedAt: new Date().toISOString(),
    }),
  });
  expect(report.status).toBe(200);

  const postmark = ((await relays(acme)).body.data as RelaysData).feedback.find((f) => f.provider === 'postmark')!;
  expect(postmark).toMatchObject({ configured: true, lastOutcome: { events: 1, recorded: 1, ignored: 0 } });
  expect(Date.parse(postmark.lastReportAt!)).toBeGreaterThanOrEqual(started - 1000);
});

it('refuses a user without account:list (403), and another account\'s key', async () => {
  const user = await createUser(herald.services.store, 'acme', { email: 'reader@acme.test', password: 'a-long-password', permissions: ['contacts:list'] });
  const { key } = await issueKey(herald.services.store, 'acme', 'api', user.id);
  const refused = await relays(acme, key);
  expect([refused.status, refused.body.error]).toEqual([403, { status: 403, type: 'FORBIDDEN', userMessage: 'Missing permission account:list' }]);
  expect((await relays(acme, globex.apiKey)).status).toBe(403);
});
