// GET /v2/{account}/stats/daily: real sends (one delivered, one opened and clicked through its
// links, one unsubscribed through its page, one refused by the relay, one dropped as suppressed)
// counted today; older days from stored events (a send bounced by a later report, a complaint);
// every day of the range present; another account's mail never counted; bad ranges refused with
// the error envelope. Its time for an account with 100,000 events: bench/console-reports.ts.
import type { NewAccount } from '../../core/accounts/accounts';
import { buildEvent, recordEvents, type EventSubject, type TrackType } from '../../core/tracking/events';
import type { EventDoc } from '../../adapters/store/store';
import { batchEvents } from '../support/events';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Answer } from '../support/http';
import { openPixelUrl } from '../support/pixel';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;
const DAY = 86_400_000;
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const today = dayText(Date.now());
const HTML = '<html><body><p>Hi</p><a href="https://shop.example/p">Shop</a> <a href="${urls.unsubscribe}">Unsubscribe</a></body></html>';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const stats = (query = '', account = acme): Promise<Answer> =>
  callHerald(herald.baseUrl, 'GET', `/v2/${account.account}/stats/daily${query ? `?${query}` : ''}`, { headers: bearer(account.apiKey) });

async function send(account: NewAccount, emails: string[]): Promise<EventDoc[]> {
  const answer = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: bearer(account.transactionalKey),
    json: { from: { email: 'shop@example.com' }, subject: 'News', content: { html: HTML }, recipients: emails.map((email) => ({ to: { email } })) },
  });
  expect(answer.status).toBe(202);
  return batchEvents(herald.services.store, account.account, answer.headers.get('herald-batch-id')!, emails.length);
}

/** A tracking link of the mail the sink received for `email`, hit as a mail client would. */
async function hitLink(email: string, pattern: RegExp | ((html: unknown) => string), init: RequestInit = {}): Promise<void> {
  const mail = herald.sink.received.find((m) => m.rcptTo.includes(email))!;
  const link = typeof pattern === 'function' ? pattern(mail.parsed.html) : pattern.exec(String(mail.parsed.html))![1];
  const answer = await fetch(`${herald.baseUrl}${new URL(link).pathname}`, { redirect: 'manual', ...init });
  expect(answer.status).toBeLessThan(400);
}

function subject(account: string, mailId: string, sentAt: number): EventSubject {
  return {
    account, batch_id: `${account}_transactional_old`, mail_id: mailId, email: `${mailId}@example.org`,
    sent_timestamp: new Date(sentAt), tags: [], custom_args: {}, mta: 'herald.test',
  };
}
const event = (account: string, type: TrackType, mailId: string, sentAt: number, at: number, extra: Record<string, unknown> = {}) =>
  buildEvent(type, subject(account, mailId, sentAt), new Date(at), 'seed', extra);

const threeDaysAgo = Date.parse(`${dayText(Date.now() - 3 * DAY)}T10:00:00Z`);

beforeAll(async () => {
  herald = await startTestHerald({ rejectRecipients: ['gone@example.org'] });
  [acme, other] = await Promise.all([herald.newAccount(), herald.newAccount()]);
  await send(acme, ['a@example.net', 'b@example.net', 'c@example.net', 'gone@example.org']);
  await send(acme, ['gone@example.org']); // suppressed by the refusal: dropped
  await send(other, ['x@example.net', 'y@example.net']);
  await herald.sink.waitFor(5);
  await hitLink('a@example.net', openPixelUrl);
  await hitLink('a@example.net', openPixelUrl); // a second open of the same message: still one
  await hitLink('a@example.net', /href="([^"]+\/t\/c\/[^"]+)"/);
  await hitLink('b@example.net', /href="([^"]+\/t\/u\/[^"]+)"/, {
    method: 'POST', body: 'reason=too_frequent', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  // Three days ago: two sent, one of them bounced by a report the next day, the other a complaint.
  await recordEvents(herald.services.store, [
    event(acme.account, 'track.mail.sent', 'old1', threeDaysAgo, threeDaysAgo),
    event(acme.account, 'track.mail.sent', 'old2', threeDaysAgo, threeDaysAgo),
    event(acme.account, 'track.mail.bounced', 'old1', threeDaysAgo, threeDaysAgo + DAY, { bounce_type: 'hard' }),
    event(acme.account, 'track.mail.bounced', 'old1', threeDaysAgo, threeDaysAgo + DAY + 60_000, { bounce_type: 'hard' }), // a second report
    event(acme.account, 'track.mail.unsubscribed', 'old2', threeDaysAgo, threeDaysAgo + 3_600_000, { reason: 'spam_fbl' }),
    // Outside the default range: never counted in it.
    event(acme.account, 'track.mail.sent', 'ancient', Date.now() - 40 * DAY, Date.now() - 40 * DAY),
  ]);
}, 120_000);
afterAll(() => herald?.stop());

const ZERO = { sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, unsubscribed: 0, complained: 0, dropped: 0 };

describe('the counts', () => {
  it('counts today\'s real sends, opens, clicks, unsubscriptions, refusals and drops', async () => {
    const answer = await stats(`from=${today}&to=${today}`);
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    expect(answer.body.data.days).toEqual([{
      date: today, sent: 4, delivered: 3, opened: 1, clicked: 1, bounced: 1, unsubscribed: 1, complained: 0, dropped: 1,
    }]);
    expect(answer.body.data.rates).toEqual({ delivered: 0.75, opened: 0.3333, clicked: 0.3333, bounced: 0.25, unsubscribed: 0.3333, complained: 0 });
  });

  it('gives the last 30 days by default, every day present, a later report counted on its day and lowering its send\'s', async () => {
    const answer = await stats();
    const { data } = answer.body;
    expect(data.days).toHaveLength(30);
    expect([data.from, data.to]).toEqual([dayText(Date.now() - 29 * DAY), today]);
    const day = (ms: number) => data.days.find((d: { date: string }) => d.date === dayText(ms));
    expect(day(threeDaysAgo)).toEqual({ ...ZERO, date: dayText(threeDaysAgo), sent: 2, delivered: 1, complained: 1 });
    expect(day(threeDaysAgo + DAY)).toEqual({ ...ZERO, date: dayText(threeDaysAgo + DAY), bounced: 1 });
    expect(day(Date.now() - 20 * DAY)).toEqual({ ...ZERO, date: dayText(Date.now() - 20 * DAY) });
    expect(data.totals).toEqual({ sent: 6, delivered: 4, opened: 1, clicked: 1, bounced: 2, unsubscribed: 1, complained: 1, dropped: 1 });
    expect(data.rates).toEqual({ delivered: 0.6667, opened: 0.25, clicked: 0.25, bounced: 0.3333, unsubscribed: 0.25, complained: 0.25 });
  });

  it('counts only the account\'s own mail', async () => {
    const { data } = (await stats(`from=${today}&to=${today}`, other)).body;
    expect(data.totals).toEqual({ ...ZERO, sent: 2, delivered: 2 });
  });

  it('answers zeros and zero rates for a range without mail', async () => {
    const { data } = (await stats('from=2020-02-27&to=2020-03-01')).body;
    expect(data.days.map((d: { date: string }) => d.date)).toEqual(['2020-02-27', '2020-02-28', '2020-02-29', '2020-03-01']);
    expect(data.totals).toEqual(ZERO);
    expect(Object.values(data.rates)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('bad ranges: 400 VALIDATION_ERROR naming the parameter', () => {
  it.each([
    ['from=2026-02-30', 'from'],
    ['to=yesterday', 'to'],
    ['from=2026-03-02&to=2026-03-01', 'from'],
    ['from=2025-01-01&to=2026-01-02', 'to'], // 367 days
    ['from=2026-01-01&from=2026-01-02', 'from'],
  ])('%s', async (query, field) => {
    const answer = await stats(query);
    expect([answer.status, answer.body.success, answer.body.error.type]).toEqual([400, false, 'VALIDATION_ERROR']);
    expect(Object.keys(answer.body.error.validationErrors)).toEqual([field]);
  });

  it('takes exactly 366 days', async () => {
    const answer = await stats('from=2024-01-01&to=2024-12-31');
    expect(answer.status).toBe(200);
    expect(answer.body.data.days).toHaveLength(366);
  });

  it('refuses a transactional key (401)', async () => {
    const answer = await callHerald(herald.baseUrl, 'GET', `/v2/${acme.account}/stats/daily`, { headers: bearer(acme.transactionalKey) });
    expect(answer.status).toBe(401);
  });
});
