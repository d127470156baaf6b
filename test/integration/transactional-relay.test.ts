// The relay's trouble seen over HTTP, end to end: a recipient the relay keeps deferring (4xx) does
// not hold the others of its request, and gets its message once the relay takes it; a relay that
// refuses Herald's login (535) is retried, never turned into bounces.
import type { NewAccount } from '../../core/accounts/accounts';
import type { SinkOptions } from '../support/smtp-sink';
import { startTestHerald, type TestHerald } from '../support/herald';

const heralds: TestHerald[] = [];
afterAll(() => Promise.all(heralds.map((h) => h.stop())));

async function heraldWith(relay: SinkOptions & { relayAuth?: boolean }): Promise<{ herald: TestHerald; account: NewAccount }> {
  const herald = await startTestHerald(relay);
  heralds.push(herald);
  return { herald, account: await herald.newAccount() };
}

async function send(herald: TestHerald, account: NewAccount, ...to: string[]): Promise<string> {
  const response = await fetch(`${herald.baseUrl}/v1/mail/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.transactionalKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: { email: 'shop@example.com' }, subject: 'Relay', content: { text: 'hi' }, recipients: to.map((email) => ({ to: { email } })) }),
  });
  expect(response.status).toBe(202);
  return response.headers.get('herald-batch-id')!;
}

const delivered = (herald: TestHerald, email: string) => herald.sink.received.filter((m) => m.rcptTo.includes(email)).length;

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

it('sends the others of a request at once while the relay defers one recipient, and that one once it is taken', async () => {
  const relay: SinkOptions = { deferRecipients: ['full@example.net'] };
  const { herald, account } = await heraldWith(relay);
  const batchId = await send(herald, account, 'full@example.net', 'one@example.net', 'two@example.net');
  await until('the other recipients delivered', () => delivered(herald, 'one@example.net') === 1 && delivered(herald, 'two@example.net') === 1);
  expect(delivered(herald, 'full@example.net')).toBe(0);
  relay.deferRecipients = []; // the mailbox has room again
  await until('the deferred recipient delivered', () => delivered(herald, 'full@example.net') === 1);
  await until('three events', async () => (await herald.services.store.events.countDocuments({ account: account.account, batch_id: batchId })) === 3);
  const events = await herald.services.store.events.find({ account: account.account, batch_id: batchId }).toArray();
  expect(events.map((e) => [e.email, e.track_type]).sort()).toEqual([
    ['full@example.net', 'track.mail.sent'], ['one@example.net', 'track.mail.sent'], ['two@example.net', 'track.mail.sent'],
  ]);
  expect(delivered(herald, 'one@example.net')).toBe(1); // the retry sent only what was missing
});

it('retries a relay that refuses Herald\'s login, without bouncing, and delivers once it takes it', async () => {
  const relay: SinkOptions & { relayAuth: boolean } = { refuseAuth: true, relayAuth: true };
  const { herald, account } = await heraldWith(relay);
  const batchId = await send(herald, account, 'patient@example.net');
  await new Promise((resolve) => setTimeout(resolve, 2500)); // the first attempts (0 s, 1 s) meet 535
  expect(await herald.services.store.events.countDocuments({ account: account.account, batch_id: batchId })).toBe(0);
  expect(await herald.services.store.suppressions.countDocuments({ account: account.account })).toBe(0);
  relay.refuseAuth = false; // the relay's credentials are fixed
  await until('delivered after the login works', () => delivered(herald, 'patient@example.net') === 1);
  await until('its sent event', async () => (await herald.services.store.events.countDocuments({ account: account.account, batch_id: batchId, track_type: 'track.mail.sent' })) === 1);
  expect(await herald.services.store.events.countDocuments({ account: account.account, batch_id: batchId, track_type: 'track.mail.bounced' })).toBe(0);
});
