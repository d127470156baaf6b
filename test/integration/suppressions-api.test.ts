// …/suppressions over HTTP: entries written by real mail (the relay's hard refusal, the
// unsubscribe page) listed with their reason and source; adding (201, then 200 unchanged), which
// makes a real send dropped; searching and paging; removing, after which the address gets mail
// again, except while its contact's state blocks it (left alone); bad input refused with the
// error envelope and nothing stored; another account's list never seen or changed.
import type { NewAccount } from '../../core/accounts/accounts';
import { batchEvents } from '../support/events';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Answer } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const api = (method: string, path: string, json?: unknown, account = acme): Promise<Answer> =>
  callHerald(herald.baseUrl, method, `/v2/${account.account}${path}`, { headers: bearer(account.apiKey), json });
const HTML = '<html><body><a href="${urls.unsubscribe}">Unsubscribe</a></body></html>';

/** Sends one message; resolves with its one event's type (sent, bounced or dropped). */
async function sendTo(email: string, account = acme): Promise<string> {
  const answer = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: bearer(account.transactionalKey),
    json: { from: { email: 'shop@example.com' }, subject: 'News', content: { html: HTML }, recipients: [{ to: { email } }] },
  });
  expect(answer.status).toBe(202);
  const [event] = await batchEvents(herald.services.store, account.account, answer.headers.get('herald-batch-id')!, 1);
  return event.track_type;
}
const listed = async (query = '', account = acme) => (await api('GET', `/suppressions${query}`, undefined, account)).body;

beforeAll(async () => {
  herald = await startTestHerald({ rejectRecipients: ['gone@example.org'] });
  [acme, other] = await Promise.all([herald.newAccount(), herald.newAccount()]);
  expect(await sendTo('gone@example.org')).toBe('track.mail.bounced');
  expect(await sendTo('leaving@example.net')).toBe('track.mail.sent');
  const mail = herald.sink.received.find((m) => m.rcptTo.includes('leaving@example.net'))!;
  const link = /href="([^"]+\/t\/u\/[^"]+)"/.exec(String(mail.parsed.html))![1];
  const done = await fetch(`${herald.baseUrl}${new URL(link).pathname}`, {
    method: 'POST', body: 'reason=too_frequent', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(done.status).toBe(200);
}, 60_000);
afterAll(() => herald?.stop());

describe('the list', () => {
  it('shows what real mail put there, newest first, with reason and source', async () => {
    const body = await listed();
    expect(body.success).toBe(true);
    expect(body.data.map((s: { email: string; reason: string; source: string }) => [s.email, s.reason, s.source])).toEqual([
      ['leaving@example.net', 'unsubscribed', 'unsubscribe'],
      ['gone@example.org', 'bounced', 'relay'],
    ]);
    expect(Date.parse(body.data[0].created)).toBeGreaterThan(Date.now() - 60_000);
    expect(body.paging).toEqual({ offset: 0, limit: 100, results: 2, total: 2 });
    expect(body.sort).toEqual({ sortby: 'created', sortdir: 'desc' });
  });

  it('is the account\'s own: another account sees none of it', async () => {
    expect((await listed('', other)).data).toEqual([]);
  });
});

describe('adding', () => {
  it('adds an address (201, lowercase, source api), and a send to it is then dropped', async () => {
    expect(await sendTo('blocked@example.com')).toBe('track.mail.sent');
    const added = await api('POST', '/suppressions', { email: 'Blocked@Example.COM' });
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({ email: 'blocked@example.com', reason: 'manual', created: expect.any(String), source: 'api' });
    expect(added.headers.get('location')).toBe(`/v2/${acme.account}/suppressions/blocked%40example.com`);
    expect(await sendTo('blocked@example.com')).toBe('track.mail.dropped');
  });

  it('is idempotent: adding it again answers 200 with the entry unchanged', async () => {
    const first = await api('POST', '/suppressions', { email: 'twice@example.com', reason: 'complained' });
    const again = await api('POST', '/suppressions', { email: 'TWICE@example.com', reason: 'bounced' });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.data).toEqual(first.body.data);
    expect(again.body.data.reason).toBe('complained');
  });

  it.each([
    [{ email: 'not an address' }, 'email'],
    [{}, 'email'],
    [{ email: 'fine@example.com', reason: 'because' }, 'reason'],
  ])('refuses %j with VALIDATION_ERROR naming %s, storing nothing', async (body, field) => {
    const before = await herald.services.store.suppressions.countDocuments({ account: acme.account });
    const answer = await api('POST', '/suppressions', body);
    expect([answer.status, answer.body.success, answer.body.error.type]).toEqual([400, false, 'VALIDATION_ERROR']);
    expect(Object.keys(answer.body.error.validationErrors)).toEqual([field]);
    expect(await herald.services.store.suppressions.countDocuments({ account: acme.account })).toBe(before);
  });

  it('refuses an operator in place of the address (400), storing nothing', async () => {
    const before = await herald.services.store.suppressions.countDocuments({ account: acme.account });
    const answer = await api('POST', '/suppressions', { email: { $gt: '' } });
    expect([answer.status, answer.body.success]).toEqual([400, false]);
    expect(await herald.services.store.suppressions.countDocuments({ account: acme.account })).toBe(before);
  });
});

describe('searching and paging', () => {
  it('finds by a part of the address in any letter case; * is literal', async () => {
    const found = await listed('?q=EXAMPLE.COM');
    expect(found.data.map((s: { email: string }) => s.email).sort()).toEqual(['blocked@example.com', 'twice@example.com']);
    expect(found.paging.total).toBe(2);
    expect((await listed('?q=gone')).data.map((s: { email: string }) => s.email)).toEqual(['gone@example.org']);
    expect((await listed('?q=*')).data).toEqual([]);
  });

  it('pages with offset and limit, and sorts by email on request', async () => {
    const all = (await listed('?sortby=email&sortdir=asc')).data.map((s: { email: string }) => s.email);
    expect(all).toEqual(['blocked@example.com', 'gone@example.org', 'leaving@example.net', 'twice@example.com']);
    const page = await listed('?sortby=email&sortdir=asc&offset=1&limit=2');
    expect(page.data.map((s: { email: string }) => s.email)).toEqual(all.slice(1, 3));
    expect(page.paging).toEqual({ offset: 1, limit: 2, results: 2, total: 4 });
    const bad = await api('GET', '/suppressions?limit=0&sortby=reason');
    expect(Object.keys(bad.body.error.validationErrors).sort()).toEqual(['limit', 'sortby']);
  });
});

describe('removing', () => {
  it('lifts the block: the address gets mail again; a second removal is 404', async () => {
    const removed = await api('DELETE', '/suppressions/BLOCKED%40example.com');
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ email: 'blocked@example.com', contactState: null });
    expect(await sendTo('blocked@example.com')).toBe('track.mail.sent');
    const again = await api('DELETE', '/suppressions/blocked%40example.com');
    expect([again.status, again.body.success, again.body.error.type]).toEqual([404, false, 'NOT_FOUND']);
  });

  it('resubscribes nobody: an unsubscribed contact stays unsubscribed and gets no mail', async () => {
    expect((await api('POST', '/contacts', { email: 'member@example.com' })).status).toBe(200);
    expect((await api('POST', '/contacts/member@example.com/unsubscribe')).body.data.state).toBe('UNSUBSCRIBED');
    await api('POST', '/suppressions', { email: 'member@example.com' });
    const removed = await api('DELETE', '/suppressions/member@example.com');
    expect(removed.body.data).toEqual({ email: 'member@example.com', contactState: 'UNSUBSCRIBED' });
    expect((await api('GET', '/contacts/member@example.com')).body.data.state).toBe('UNSUBSCRIBED');
    expect(await sendTo('member@example.com')).toBe('track.mail.dropped');
  });

  it('never touches another account\'s list', async () => {
    const answer = await api('DELETE', '/suppressions/gone@example.org', undefined, other);
    expect(answer.status).toBe(404);
    expect((await listed('?q=gone')).data).toHaveLength(1);
    expect(await sendTo('gone@example.org', other)).toBe('track.mail.bounced'); // refused by the relay, not dropped: not on other's list
  });
});
