// The hosted double opt-in on the real stack: the public form, its submit in the original's
// shapes, the confirmation mail through the send path (recorded by the SMTP sink), and the
// confirmation that alone subscribes (or re-subscribes) a contact.
import http from 'node:http';
import { AccountError, createAccount, type NewAccount } from '../../core/accounts/accounts';
import { hashKey } from '../../core/accounts/keys';
import type { ListDoc, Store } from '../../adapters/store/store';
import type { Herald } from '../../composition/herald';
import { freePort } from '../../infra/ports';
import { composeTestHerald, listenLocally, startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';
import type { ReceivedMail } from '../support/smtp-sink';

let herald: TestHerald;
let store: Store;
let acme: NewAccount;
let other: NewAccount;

/** A list (and interests 1 and 2) as the account API would have created them. */
async function seed(account: string, lists: Array<[number, string]>) {
  const now = new Date();
  await store.lists.insertMany(lists.map(([id, name]): ListDoc => ({
    _id: `${account}:${id}`, account, id, name, description: '', tags: [], created: now, lastModified: now, lastMailed: null,
  })));
  await store.interests.insertMany([1, 2].map((id) => ({
    _id: `${account}:${id}`, account, id, name: `Interest ${id}`, description: '', expirationDays: 0, created: now, lastModified: now, lastMailed: null,
  })));
}

beforeAll(async () => {
  herald = await startTestHerald();
  store = herald.services.store;
  acme = await herald.newAccount();
  other = await herald.newAccount();
  await seed(acme.account, [[1, 'Weekly <News> & "Deals"'], [2, 'Second list'], [3, 'Line one\r\nBcc: victim@example.org'], [4, 'Deals ${user.name} [#if x]&[/#if] ${']]);
  await seed(other.account, [[1, 'Other account\'s list']]);
});
afterAll(() => herald?.stop());

const formPath = (account: string, listId: number | string) => `/v2/optin/${account}/${listId}`;

/** One raw HTTP call: the pages are HTML, so the body is kept as text. */
async function request(method: string, path: string, options: { form?: string; json?: unknown; accept?: string } = {}) {
  const headers: Record<string, string> = options.accept ? { accept: options.accept } : {};
  let body: string | undefined;
  if (options.form !== undefined) { headers['content-type'] = 'application/x-www-form-urlencoded'; body = options.form; }
  if (options.json !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(options.json); }
  const response = await fetch(`${herald.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
const json = (answer: { text: string }): Json => JSON.parse(answer.text);
const html = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'; // a browser's Accept

/** The `nth` mail the sink received for `email` (waiting for it), and the token of its link. */
async function confirmationMail(email: string, nth = 1): Promise<{ mail: ReceivedMail; token: string; link: string }> {
  for (;;) {
    const mails = herald.sink.received.filter((m) => m.rcptTo.includes(email));
    if (mails.length >= nth) {
      const mail = mails[nth - 1];
      const link = /(\S+\/confirm\?token=([A-Za-z0-9]+))/.exec(mail.parsed.text ?? '');
      if (!link) throw new Error(`no confirmation link in: ${mail.parsed.text}`);
      return { mail, link: link[1], token: link[2] };
    }
    await herald.sink.waitFor(herald.sink.received.length + 1);
  }
}

const contactOf = (account: string, email: string) => store.contacts.findOne({ account, email });
const pendingOf = (account: string, listId: number, email: string) => store.optinConfirmations.findOne({ account, listId, email });
const confirm = (account: string, listId: number, token: string) => request('POST', `${formPath(account, listId)}/confirm`, { form: `token=${token}` });
const api = (method: string, path: string, json?: unknown) =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}${path}`, { json, headers: { authorization: `Bearer ${acme.apiKey}` } });

describe('the form page', () => {
  it('is a self-contained HTML page with the list\'s name escaped and the three fields', async () => {
    const page = await request('GET', formPath(acme.account, 1));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).toContain('Weekly &lt;News&gt; &amp; &quot;Deals&quot;');
    expect(page.text).not.toContain('<News>');
    expect(page.text).toContain(`<form method="post" action="${formPath(acme.account, 1)}">`);
    for (const field of ['name="email" type="email" required', 'name="firstName"', 'name="lastName"']) expect(page.text).toContain(field);
    expect(page.text).not.toMatch(/<script|<link|src=/);
  });

  it('is a 404 HTML page for an unknown list or account', async () => {
    for (const path of [formPath(acme.account, 99), formPath('nosuchaccount', 1), formPath(acme.account, 'abc'), formPath('Bad-Name', 1)]) {
      const page = await request('GET', path);
      expect([path, page.status, page.headers.get('content-type')]).toEqual([path, 404, 'text/html; charset=utf-8']);
      expect(page.text).toContain('This subscription form does not exist');
    }
  });

  it('reserves the account name "optin"', async () => {
    await expect(createAccount(store, 'optin')).rejects.toBeInstanceOf(AccountError);
  });
});

describe('submit and confirm', () => {
  it('mails a list name in the substitution language\'s syntax as it is written, never as a template', async () => {
    const answer = await request('POST', formPath(acme.account, 4), { form: 'fields[3]=syntax%40example.net' });
    expect(answer.status).toBe(200);
    const { mail } = await confirmationMail('syntax@example.net');
    expect(mail.parsed.subject).toBe('Confirm your subscription to Deals ${user.name} [#if x]&[/#if] ${');
    expect(mail.parsed.html).toContain('<strong>Deals ${user.name} [#if x]&amp;[/#if] ${</strong>');
    expect(mail.parsed.text).toContain('to Deals ${user.name} [#if x]&[/#if] ${.');
  });

  it('takes the original\'s form (fields[3]), records a pending confirmation, changes no contact, and mails the link', async () => {
    const form = 'fields[3]=Ada%40Example.NET&fields[1]=Ada&fields[2]=Lovelace&fields[10]=ignored&interests[]=1&interests[]=999';
    const answer = await request('POST', formPath(acme.account, 1), { form });
    expect(answer.status).toBe(200);
    expect(json(answer)).toEqual({ href: formPath(acme.account, 1), success: true, data: { userMessage: expect.stringContaining('check your inbox') } });
    expect(await contactOf(acme.account, 'ada@example.net')).toBeNull();
    const pending = await pendingOf(acme.account, 1, 'ada@example.net');
    expect(pending).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', interests: [1, 999] });

    const { mail, token, link } = await confirmationMail('ada@example.net');
    expect(mail.parsed.subject).toBe('Confirm your subscription to Weekly <News> & "Deals"');
    expect(mail.parsed.from?.value[0].address).toBe(herald.herald.config.optinFrom); // HERALD_OPTIN_FROM, by default no-reply@<mta host>
    expect(link).toMatch(new RegExp(`^https?://[^/]+/v2/optin/${acme.account}/1/confirm\\?token=[A-Za-z0-9]{32}$`));
    expect(mail.parsed.html).toContain(`href="${link}"`);
    expect(mail.parsed.html).toContain('Weekly &lt;News&gt; &amp; &quot;Deals&quot;');
    // The token is stored only as its hash; the send is tagged.
    expect(pending!._id).toBe(hashKey(token));
    expect(JSON.stringify(pending)).not.toContain(token);
    const sent = await store.sendRequests.find({ account: acme.account }).toArray();
    expect(sent.some((r) => JSON.parse(r.payload).tags?.[0] === 'optin-confirmation')).toBe(true);
  });

  it('shows a page with one POST button on GET, which changes nothing; the POST subscribes, once', async () => {
    const { token } = await confirmationMail('ada@example.net');
    const page = await request('GET', `${formPath(acme.account, 1)}/confirm?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${formPath(acme.account, 1)}/confirm">`);
    expect(page.text).toContain(`<input type="hidden" name="token" value="${token}">`);
    expect(page.text).toContain('Confirm subscription</button>');
    expect(await contactOf(acme.account, 'ada@example.net')).toBeNull();
    expect(await pendingOf(acme.account, 1, 'ada@example.net')).not.toBeNull();

    const confirmed = await confirm(acme.account, 1, token);
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('You are subscribed');
    expect(await contactOf(acme.account, 'ada@example.net')).toMatchObject({
      firstName: 'Ada', lastName: 'Lovelace', source: 'OPTIN_FORM', state: 'ACTIVE', lists: [1], interests: [{ id: 1 }], // 999 is no interest
    });
    expect(await pendingOf(acme.account, 1, 'ada@example.net')).toBeNull();

    const again = await confirm(acme.account, 1, token);
    expect(again.status).toBe(404);
    expect(again.text).toContain('This link is no longer valid');
    expect((await request('GET', `${formPath(acme.account, 1)}/confirm?token=${token}`)).status).toBe(404);
  });

  it('takes the plain names of its own page and answers a browser with HTML', async () => {
    const answer = await request('POST', formPath(acme.account, 2), { form: 'reply=html&email=bob%40example.org&firstName=Bob&lastName=', accept: '*/*' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.text).toContain('check your inbox');
    const byAccept = await request('POST', formPath(acme.account, 2), { form: 'email=carol%40example.org', accept: html });
    expect(byAccept.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const { token } = await confirmationMail('bob@example.org');
    expect((await confirm(acme.account, 2, token)).status).toBe(200);
    expect(await contactOf(acme.account, 'bob@example.org')).toMatchObject({ firstName: 'Bob', lastName: '', lists: [2], state: 'ACTIVE' });
  });

  it('takes JSON, with a redirect followed (303) only after a successful confirmation', async () => {
    const answer = await request('POST', formPath(acme.account, 2), { json: { email: ' dan@example.org ', interests: [2, '1'], redirect: 'https://shop.example.com/thanks?x=1' } });
    expect(answer.status).toBe(200);
    expect(json(answer).data.userMessage).toContain('check your inbox');
    const { token } = await confirmationMail('dan@example.org');
    const confirmed = await confirm(acme.account, 2, token);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe('https://shop.example.com/thanks?x=1');
    expect((await contactOf(acme.account, 'dan@example.org'))?.interests.map((i) => i.id).sort()).toEqual([1, 2]);
  });
});

describe('re-subscribing an unsubscribed contact', () => {
  it('brings an UNSUBSCRIBED contact back only through the confirmed opt-in, keeping what the visitor did not give', async () => {
    const created = await api('POST', '/contacts', { email: 'grace@example.org', firstName: 'Grace', lastName: 'Hopper', lists: [2] });
    const id = created.body.data.id;
    expect((await api('POST', `/contacts/${id}/unsubscribe`)).body.data.state).toBe('UNSUBSCRIBED');
    // No API call brings it back.
    await api('PUT', `/contacts/${id}`, { state: 'ACTIVE', firstName: 'Grace' });
    await api('POST', '/lists/3/contacts', { email: 'grace@example.org', state: 'ACTIVE' });
    expect((await contactOf(acme.account, 'grace@example.org'))?.state).toBe('UNSUBSCRIBED');
    await store.contacts.updateOne({ account: acme.account, email: 'grace@example.org' }, { $set: { inactivated: new Date() } });

    // The submit answers a contact's address exactly as a stranger's, and changes nothing.
    const forContact = await request('POST', formPath(acme.account, 1), { form: 'fields[3]=grace%40example.org&interests[]=2' });
    const forStranger = await request('POST', formPath(acme.account, 1), { form: 'fields[3]=stranger%40example.org&interests[]=2' });
    expect([forContact.status, forContact.text]).toEqual([forStranger.status, forStranger.text]);
    const { token } = await confirmationMail('grace@example.org');
    await request('GET', `${formPath(acme.account, 1)}/confirm?token=${token}`);
    expect((await contactOf(acme.account, 'grace@example.org'))?.state).toBe('UNSUBSCRIBED');

    expect((await confirm(acme.account, 1, token)).status).toBe(200);
    expect(await contactOf(acme.account, 'grace@example.org')).toMatchObject({
      state: 'ACTIVE', inactivated: null, firstName: 'Grace', lastName: 'Hopper', source: 'MANUAL', lists: [2, 3, 1], interests: [{ id: 2 }],
    });
  });
});

describe('refusals and limits', () => {
  it('refuses a bad email with 400 in the original\'s error shape, or as a page for a browser', async () => {
    for (const body of [{ form: 'fields[3]=not-an-address' }, { json: { email: 'nope@' } }, { form: 'firstName=NoEmail' }]) {
      const answer = await request('POST', formPath(acme.account, 1), body);
      expect(answer.status).toBe(400);
      expect(json(answer)).toMatchObject({ success: false, error: { status: 400, type: 'VALIDATION_ERROR', userMessage: 'Please enter a valid email address' } });
    }
    const page = await request('POST', formPath(acme.account, 1), { form: 'reply=html&email=bad' });
    expect([page.status, page.headers.get('content-type')]).toEqual([400, 'text/html; charset=utf-8']);
    expect(page.text).toContain('Please enter a valid email address');
    const injected = await request('POST', formPath(acme.account, 1), { json: { email: 'eve@example.org', firstName: 'Eve\r\nBcc: x@example.org' } });
    expect(injected.status).toBe(400);
    const redirect = await request('POST', formPath(acme.account, 1), { json: { email: 'eve@example.org', redirect: 'javascript:alert(1)' } });
    expect(json(redirect).error.validationErrors).toEqual({ redirect: 'Must be an http or https URL' });
    expect(await pendingOf(acme.account, 1, 'eve@example.org')).toBeNull();
  });

  it('answers 404 for an unknown list, in JSON to API callers', async () => {
    const answer = await request('POST', formPath(acme.account, 42), { form: 'fields[3]=x%40example.org' });
    expect(answer.status).toBe(404);
    expect(json(answer)).toMatchObject({ success: false, error: { status: 404, userMessage: 'This subscription form does not exist' } });
  });

  it('sends one mail per address and list in 10 minutes: a repeat answers the same and sends nothing', async () => {
    const count = () => store.sendRequests.countDocuments({ account: acme.account });
    const before = await count();
    const first = await request('POST', formPath(acme.account, 2), { form: 'email=erin%40example.org' });
    const repeat = await request('POST', formPath(acme.account, 2), { form: 'email=ERIN%40example.org&firstName=Changed' });
    expect([repeat.status, repeat.text]).toEqual([first.status, first.text]);
    expect(await count()).toBe(before + 1); // acceptance precedes the answer: a second send would be stored by now
    expect((await pendingOf(acme.account, 2, 'erin@example.org'))?.firstName).toBe('');

    // Ten minutes later a new request mails a new link, and the older one stops working.
    const { token: older } = await confirmationMail('erin@example.org');
    await store.optinConfirmations.updateOne({ account: acme.account, listId: 2, email: 'erin@example.org' }, { $set: { createdAt: new Date(Date.now() - 11 * 60_000) } });
    await request('POST', formPath(acme.account, 2), { form: 'email=erin%40example.org' });
    expect(await count()).toBe(before + 2);
    const { token: newer } = await confirmationMail('erin@example.org', 2);
    expect(newer).not.toBe(older);
    expect((await confirm(acme.account, 2, older)).status).toBe(404);
    expect((await confirm(acme.account, 2, newer)).status).toBe(200);
  });

  it('refuses an expired token with 410, and deletes it', async () => {
    await request('POST', formPath(acme.account, 1), { form: 'email=frank%40example.org' });
    const { token } = await confirmationMail('frank@example.org');
    await store.optinConfirmations.updateOne({ _id: hashKey(token) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const page = await request('GET', `${formPath(acme.account, 1)}/confirm?token=${token}`);
    expect(page.status).toBe(410);
    expect(page.text).toContain('This link is no longer valid');
    expect((await confirm(acme.account, 1, token)).status).toBe(410);
    expect(await pendingOf(acme.account, 1, 'frank@example.org')).toBeNull();
    expect(await contactOf(acme.account, 'frank@example.org')).toBeNull();
  });

  it('does not confirm one account\'s list into another account', async () => {
    await request('POST', formPath(acme.account, 1), { form: 'email=gina%40example.org' });
    const { token } = await confirmationMail('gina@example.org');
    expect((await confirm(other.account, 1, token)).status).toBe(404);
    expect((await request('GET', `${formPath(other.account, 1)}/confirm?token=${token}`)).status).toBe(404);
    expect((await confirm(acme.account, 2, token)).status).toBe(404); // another list of the same account neither
    expect(await contactOf(other.account, 'gina@example.org')).toBeNull();
    expect(await contactOf(acme.account, 'gina@example.org')).toBeNull();
    // Still usable where it belongs.
    expect((await confirm(acme.account, 1, token)).status).toBe(200);
    expect((await contactOf(acme.account, 'gina@example.org'))?.lists).toEqual([1]);
  });

  it('puts a list name on one line in the Subject: no header injection', async () => {
    await request('POST', formPath(acme.account, 3), { form: 'email=hank%40example.org' });
    const { mail } = await confirmationMail('hank@example.org');
    expect(mail.parsed.subject).toBe('Confirm your subscription to Line one Bcc: victim@example.org');
    expect(mail.parsed.bcc).toBeUndefined();
    expect(mail.rcptTo).toEqual(['hank@example.org']);
  });
});

describe('when the mail cannot be accepted', () => {
  let down: Herald;
  let server: http.Server;
  let baseUrl: string;
  beforeAll(async () => {
    // The same store, and a Temporal address where nothing listens.
    down = composeTestHerald({
      HERALD_MONGODB_DATABASE: store.db.databaseName, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, HERALD_TASK_QUEUE: 'unused',
    }, { lazyTemporal: true });
    server = await down.apiServer();
    baseUrl = await listenLocally(server);
  });
  afterAll(async () => {
    // Not down.close(): its Temporal connection stays open, or the SDK's pending retry timers throw on a shut channel.
    await new Promise((resolve) => server.close(resolve));
    await (await down.store()).close();
  });

  it('answers 503 and keeps no pending confirmation, so the visitor can retry', async () => {
    // An account that never sent: no drain of the suite's worker can be at work for it (a request
    // that joined one would be sent without ringing Temporal).
    const quiet = await herald.newAccount();
    await seed(quiet.account, [[1, 'Quiet list']]);
    const answer = await fetch(`${baseUrl}${formPath(quiet.account, 1)}`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=ivy%40example.org',
    });
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({ success: false, error: { status: 503, type: 'SERVICE_UNAVAILABLE', userMessage: expect.any(String) } });
    expect(await pendingOf(quiet.account, 1, 'ivy@example.org')).toBeNull();
    expect(await store.senders.findOne({ _id: quiet.account })).toBeNull();
  });
});
