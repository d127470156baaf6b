// POST …/campaigns/{id}/contents/{contentId}/preview over HTTP: the saved content rendered as the
// send renders it (layout, merge tags for a real contact or a sample), unsaved HTML, MJML, text and
// subject in its place, the links left as written; MJML and template errors refused with the
// error envelope naming the field; nothing stored; a lister may preview, another account may not.
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Answer } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;
let campaignId: number;
let contentId: number;
let lister: string;

const SAVED = '<html><body><p>Hello ${contact.first_name!"friend"} (${contact.CLIENTNO})</p><a href="https://shop.example/p">Shop</a></body></html>';
const MJML = '<mjml><mj-body><mj-section><mj-column><mj-text>Hi ${contact.last_name}</mj-text></mj-column></mj-section></mj-body></mjml>';

const call = (method: string, path: string, init: { json?: unknown; form?: string; key?: string; type?: string; raw?: string } = {}): Promise<Answer> => {
  if (init.raw !== undefined) {
    return fetch(`${herald.baseUrl}/v2/${acme.account}${path}`, {
      method, headers: { authorization: `Bearer ${acme.apiKey}`, 'content-type': init.type! }, body: init.raw,
    }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() }));
  }
  return callHerald(herald.baseUrl, method, `/v2/${acme.account}${path}`, { headers: { authorization: `Bearer ${init.key ?? acme.apiKey}` }, json: init.json, form: init.form });
};
const preview = (json?: unknown, key?: string, account = acme) =>
  callHerald(herald.baseUrl, 'POST', `/v2/${account.account}/campaigns/${campaignId}/contents/${contentId}/preview`, {
    headers: { authorization: `Bearer ${key ?? account.apiKey}` }, json: json ?? {},
  });

beforeAll(async () => {
  herald = await startTestHerald();
  [acme, other] = await Promise.all([herald.newAccount(), herald.newAccount()]);
  expect((await call('POST', '/fields', { form: 'name=Client%20number&tag=CLIENTNO&format=TEXT' })).status).toBe(201);
  const fieldId = (await call('GET', '/fields')).body.data.find((f: { tag: string }) => f.tag === 'CLIENTNO').id;
  expect((await call('POST', '/contacts', { json: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', customFields: [{ id: fieldId, value: 'C-7' }] } })).status).toBe(200);
  campaignId = (await call('POST', '/campaigns', { form: 'name=Spring' })).body.data.id;
  contentId = (await call('POST', `/campaigns/${campaignId}/contents`, { form: 'subject=Hi%20${contact.first_name!"there"}&from=news@example.com&fromName=News' })).body.data.id;
  expect((await call('PUT', `/campaigns/${campaignId}/contents/${contentId}.html`, { raw: SAVED, type: 'text/html' })).status).toBe(200);
  const user = await call('POST', '/users', { json: { email: 'lister@example.com', password: 'Passw0rd-long-enough', permissions: ['campaigns:list'] } });
  lister = (await call('POST', `/users/${user.body.data.id}/keys`)).body.data.key;
}, 60_000);
afterAll(() => herald?.stop());

describe('the saved content', () => {
  it('renders for a sample contact: layout, merge tags, no pixel, links not rewritten', async () => {
    const answer = await preview();
    expect(answer.status).toBe(200);
    const { data } = answer.body;
    expect(data.subject).toBe('Hi Jane');
    expect(data.html).toContain('<p>Hello Jane (Sample Client number)</p>');
    // Not rewritten for click tracking; the utm parameters of the campaign's ANALYTICS option (on by default) are there, as sent.
    expect(data.html).toContain('href="https://shop.example/p?utm_source=herald&amp;utm_medium=email&amp;utm_campaign=Spring"');
    expect(data.html).toContain('class="herald-footer"'); // the unsubscribe footer, as sent
    expect(data.html).not.toMatch(/\/t\/(o|c)\//);
    expect(data.text).toContain('Hello Jane (Sample Client number)');
    expect(data.textDerived).toBe(true);
    expect(data.contact).toEqual({ email: 'jane.doe@example.com', sample: true });
    // The footer's unsubscribe link carries a token Herald refuses: a click in a preview acts on nobody.
    const unsubscribe = new URL(/href="([^"]+\/t\/u\/[^"]+)"/.exec(data.html)![1]);
    const page = await fetch(`${herald.baseUrl}${unsubscribe.pathname}`, { redirect: 'manual' });
    expect(page.status).toBe(404);
  });

  it('renders for the account\'s contact of `email`', async () => {
    const { data } = (await preview({ email: 'ADA@example.com' })).body;
    expect(data.subject).toBe('Hi Ada');
    expect(data.html).toContain('<p>Hello Ada (C-7)</p>');
    expect(data.contact).toEqual({ email: 'ada@example.com', sample: false });
  });

  it('uses a sample contact with the address given when it is no contact', async () => {
    const { data } = (await preview({ email: 'nobody@example.com' })).body;
    expect(data.contact).toEqual({ email: 'nobody@example.com', sample: true });
  });
});

describe('unsaved fields', () => {
  it('renders MJML, text and subject given, and stores none of them', async () => {
    const before = await herald.services.store.campaigns.findOne({ account: acme.account, id: campaignId });
    const { data } = (await preview({ mjml: MJML, text: 'Bye ${contact.first_name}', subject: 'New ${contact.last_name}', email: 'ada@example.com' })).body;
    expect(data.subject).toBe('New Lovelace');
    expect(data.html).toContain('Hi Lovelace');
    expect(data.html).toMatch(/<!doctype html>/i);
    expect(data.text).toMatch(/^Bye Ada/);
    expect(data.textDerived).toBe(false);
    const after = await herald.services.store.campaigns.findOne({ account: acme.account, id: campaignId });
    expect(after).toEqual(before);
  });

  it('takes HTML, and MJML given as html', async () => {
    expect((await preview({ html: '<p>${contact.email}</p>' })).body.data.html).toContain('<p>jane.doe@example.com</p>');
    expect((await preview({ html: MJML })).body.data.html).toContain('Hi Doe');
  });
});

describe('errors: 400 VALIDATION_ERROR naming the field', () => {
  it.each([
    [{ mjml: '<mjml><mj-body><mj-nope/></mj-body></mjml>' }, 'mjml', /line 1/],
    [{ mjml: 'not mjml' }, 'mjml', /MJML/],
    [{ html: '<p>${contact.first_name</p>' }, 'html', /Template error: Line 1, column/],
    [{ subject: '[#if x]open' }, 'subject', /Template error/],
    [{ text: '${' }, 'text', /Template error/],
    [{ html: '<p/>', mjml: MJML }, 'mjml', /not both/],
    [{ email: 'not an address' }, 'email', /./],
    [{ html: 42 }, 'html', /./],
  ])('%j', async (body, field, message) => {
    const answer = await preview(body);
    expect([answer.status, answer.body.success, answer.body.error.type]).toEqual([400, false, 'VALIDATION_ERROR']);
    expect(Object.keys(answer.body.error.validationErrors)).toEqual([field]);
    expect(answer.body.error.validationErrors[field]).toMatch(message);
  });
});

describe('who may preview', () => {
  it('a user with campaigns:list only', async () => {
    expect((await preview({}, lister)).status).toBe(200);
  });

  it('not another account, nor a content that does not exist', async () => {
    expect((await preview({}, other.apiKey)).status).toBe(403);
    const theirs = await preview({}, undefined, other);
    expect([theirs.status, theirs.body.error.type]).toEqual([404, 'NOT_FOUND']);
    const missing = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/campaigns/${campaignId}/contents/${contentId + 1}/preview`, {
      headers: { authorization: `Bearer ${acme.apiKey}` }, json: {},
    });
    expect(missing.status).toBe(404);
  });
});
