// Contacts over HTTP on the real store: the spec's table, the original's client habits, and
// the interests-replace vs interest-add semantics.
import type { NewAccount } from '../../core/accounts/accounts';
import type { Store } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;
let store: Store;

beforeAll(async () => {
  herald = await startTestHerald();
  store = herald.services.store;
  acme = await herald.newAccount();
  other = await herald.newAccount();
  // Lists, interests and fields as their own resources would create them.
  const now = new Date();
  const account = acme.account;
  await store.lists.insertMany([1, 2, 3].map((id) => ({ _id: `${account}:${id}`, account, id, name: `List ${id}`, description: '', tags: [], created: now, lastModified: now, lastMailed: null })));
  await store.interests.insertMany([1, 2, 3].map((id) => ({ _id: `${account}:${id}`, account, id, name: `Interest ${id}`, description: '', expirationDays: 0, created: now, lastModified: now, lastMailed: null })));
  await store.fields.insertMany([
    { _id: `${account}:10`, account, id: 10, name: 'Customer number', tag: 'CUSTOMERNUMBER', format: 'INT', created: now, lastModified: now },
    { _id: `${account}:11`, account, id: 11, name: 'Birthday', tag: 'BIRTHDAY', format: 'DATE', created: now, lastModified: now },
    { _id: `${account}:12`, account, id: 12, name: 'Notes', tag: 'NOTES', format: 'TEXT', created: now, lastModified: now },
  ]);
});
afterAll(() => herald?.stop());

const call = (method: string, path: string, options: { key?: string; json?: unknown; form?: string } = {}) =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}${path}`, { ...options, headers: { authorization: `Bearer ${options.key ?? acme.apiKey}` } });

describe('create and read', () => {
  it('creates a contact from JSON with the defaults and answers the full record', async () => {
    const answer = await call('POST', '/contacts', { json: { email: ' Ada@Example.COM ', firstName: 'Ada', customFields: [{ id: 10, value: 42 }], interests: [{ id: 1 }], lists: [1] } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      href: `/v2/${acme.account}/contacts`,
      success: true,
      data: {
        id: expect.any(Number), email: 'ada@example.com', firstName: 'Ada', lastName: '', gender: '', language: '', preferredFormat: 'HTML',
        source: 'MANUAL', state: 'ACTIVE', quality: 0, lastMailed: null, lastAction: null, created: expect.any(String), lastModified: expect.any(String), inactivated: null,
        lists: [{ id: 1, name: 'List 1' }],
        interests: [{ id: 1, name: 'Interest 1', subscribed: expect.any(String) }],
        customFields: [
          { id: 10, name: 'Customer number', format: 'INT', value: '42' },
          { id: 11, name: 'Birthday', format: 'DATE', value: '' },
          { id: 12, name: 'Notes', format: 'TEXT', value: '' },
        ],
      },
    });
  });

  it('creates a contact from a PHP-style form, with references as ids, strings and objects', async () => {
    const form = 'email=bob%40example.net&lastName=Builder&gender=m&customFields[0][id]=11&customFields[0][value]=1990-05-17&lists[]=2&interests[0][id]=2&interests[0][name]=ignored';
    const answer = await call('POST', '/contacts', { form });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      email: 'bob@example.net', lastName: 'Builder', gender: 'M', lists: [{ id: 2, name: 'List 2' }], interests: [{ id: 2, name: 'Interest 2' }],
    });
    expect(answer.body.data.customFields[1]).toEqual({ id: 11, name: 'Birthday', format: 'DATE', value: '1990-05-17' });
  });

  it('refuses a duplicate email with 409 RESOURCE_EXISTS, naming email and giving the existing id', async () => {
    const existing = (await call('GET', '/contacts/ada@example.com')).body.data;
    const answer = await call('POST', '/contacts', { json: { email: 'ADA@example.com' } });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({
      href: `/v2/${acme.account}/contacts`, success: false, data: { id: existing.id },
      error: { status: 409, type: 'RESOURCE_EXISTS', userMessage: expect.any(String), validationErrors: { email: expect.any(String) }, data: { id: existing.id } },
    });
  });

  it('names every missing reference and every value that does not fit its field', async () => {
    const answer = await call('POST', '/contacts', { json: {
      email: 'refs@example.com', lists: [1, 99], interests: ['98'], customFields: [{ id: 97, value: 'x' }, { id: 10, value: 'abc' }, { id: 11, value: '31/02/2020' }],
    } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.type).toBe('VALIDATION_ERROR');
    expect(answer.body.error.validationErrors).toEqual({
      'lists[1]': 'No list with id 99', 'interests[0]': 'No interest with id 98', 'customFields[0].id': 'No custom field with id 97',
      'customFields[1].value': expect.stringContaining('INT'), 'customFields[2].value': expect.stringContaining('DATE'),
    });
    expect(await store.contacts.countDocuments({ account: acme.account, email: 'refs@example.com' })).toBe(0);
  });

  it('refuses a bad email and operator objects as values', async () => {
    const bad = await call('POST', '/contacts', { json: { email: 'not an email' } });
    expect(bad.body.error.validationErrors).toEqual({ email: 'Invalid email address' });
    const operator = await call('POST', '/contacts', { json: { email: { $ne: null } } });
    expect(operator.status).toBe(400);
    expect(operator.body.error.type).toBe('BAD_REQUEST');
  });

  it('reads a contact by id and by email; an unknown one is 404', async () => {
    const byEmail = await call('GET', `/contacts/${encodeURIComponent('ADA@example.com')}`);
    expect(byEmail.status).toBe(200);
    const byId = await call('GET', `/contacts/${byEmail.body.data.id}`);
    expect(byId.body.data).toEqual(byEmail.body.data);
    expect((await call('GET', '/contacts/nobody@example.com')).status).toBe(404);
    expect((await call('GET', '/contacts/a%25b%40example.com')).status).toBe(404); // an escaped % is decoded once
    expect((await call('GET', '/contacts/999999')).status).toBe(404);
  });
});

describe('update and membership', () => {
  let id: number;
  beforeAll(async () => {
    id = (await call('POST', '/contacts', { json: { email: 'eve@example.org', interests: [1, 2], lists: [1, 2] } })).body.data.id;
  });

  it('answers only the modified information on PUT', async () => {
    const answer = await call('PUT', `/contacts/${id}`, { json: { firstName: 'Eve', lastName: '', customFields: [{ id: 12, value: 'vip' }] } });
    expect(answer.body).toEqual({
      href: `/v2/${acme.account}/contacts/${id}`, success: true,
      data: { id, firstName: 'Eve', lastModified: expect.any(String), customFields: expect.arrayContaining([{ id: 12, name: 'Notes', format: 'TEXT', value: 'vip' }]) },
    });
  });

  it('replaces the interests when an interests array is given, keeping the date of those kept', async () => {
    const before = (await call('GET', `/contacts/${id}`)).body.data.interests;
    const answer = await call('PUT', `/contacts/eve@example.org`, { json: { interests: [{ id: 2 }, { id: 3 }] } });
    expect(answer.body.data.interests.map((i: Json) => i.id)).toEqual([2, 3]);
    expect(answer.body.data.interests[0].subscribed).toBe(before.find((i: Json) => i.id === 2).subscribed);
  });

  it('adds one interest without touching the others, and removes one', async () => {
    const added = await call('PUT', `/contacts/${id}/interests/1`);
    expect(added.status).toBe(200);
    expect(added.body.data.interests.map((i: Json) => i.id).sort()).toEqual([1, 2, 3]);
    expect((await call('PUT', `/contacts/${id}/interests/1`, { form: '' })).body.data.interests).toHaveLength(3); // twice: no duplicate
    const removed = await call('DELETE', `/contacts/${id}/interests/2`, { form: '' });
    expect(removed.body.data.interests.map((i: Json) => i.id).sort()).toEqual([1, 3]);
    expect((await call('PUT', `/contacts/${id}/interests/99`)).status).toBe(404);
  });

  it('adds and removes one list the same way', async () => {
    expect((await call('PUT', `/contacts/${id}/lists/3`)).body.data.lists.map((l: Json) => l.id)).toEqual([1, 2, 3]);
    expect((await call('DELETE', `/contacts/${id}/lists/1`)).body.data.lists.map((l: Json) => l.id)).toEqual([2, 3]);
  });

  it('POST /lists/{id}/contacts creates a new contact in the list, or updates one and adds the list', async () => {
    const created = await call('POST', '/lists/3/contacts', { json: { email: 'new@example.org', firstName: 'New' } });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ email: 'new@example.org', firstName: 'New', lists: [{ id: 3, name: 'List 3' }] });
    const updated = await call('POST', '/lists/1/contacts', { json: { email: 'EVE@example.org', lastName: 'Lyn' } });
    expect(updated.body.data).toMatchObject({ id, lastName: 'Lyn' });
    expect(updated.body.data.lists.map((l: Json) => l.id)).toEqual([2, 3, 1]);
    expect((await call('POST', '/lists/99/contacts', { json: { email: 'x@example.org' } })).status).toBe(404);
  });

  it('makes one contact of ten simultaneous upserts of the same email', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      call('POST', `/lists/${(i % 3) + 1}/contacts`, { json: { email: 'race@example.org', firstName: `R${i}` } })));
    expect(answers.map((a) => a.status)).toEqual(new Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
    expect(await store.contacts.countDocuments({ account: acme.account, email: 'race@example.org' })).toBe(1);
    const { lists } = (await store.contacts.findOne({ account: acme.account, email: 'race@example.org' }))!;
    expect([...lists].sort()).toEqual([1, 2, 3]); // no membership lost to a concurrent update
    await call('DELETE', `/contacts/${answers[0].body.data.id}`);
  });

  it('keeps every custom field of simultaneous updates of different fields, and clears one with ""', async () => {
    const { id: racer } = (await call('POST', '/contacts', { json: { email: 'fields@example.org' } })).body.data;
    await Promise.all([
      call('PUT', `/contacts/${racer}`, { json: { customFields: [{ id: 10, value: '7' }] } }),
      call('PUT', `/contacts/${racer}`, { json: { customFields: [{ id: 11, value: '2020-01-02' }] } }),
      call('PUT', `/contacts/${racer}`, { json: { customFields: [{ id: 12, value: 'note' }] } }),
    ]);
    expect((await store.contacts.findOne({ account: acme.account, id: racer }))!.customFields).toEqual({ 10: '7', 11: '2020-01-02', 12: 'note' });
    await call('PUT', `/contacts/${racer}`, { form: 'customFields[0][id]=12&customFields[0][value]=' });
    expect((await store.contacts.findOne({ account: acme.account, id: racer }))!.customFields).toEqual({ 10: '7', 11: '2020-01-02' });
    await call('DELETE', `/contacts/${racer}`);
  });

  it('unsubscribes for good: state UNSUBSCRIBED, and no PUT brings it back', async () => {
    const answer = await call('POST', `/contacts/${id}/unsubscribe`);
    expect(answer.body).toEqual({ href: `/v2/${acme.account}/contacts/${id}/unsubscribe`, success: true, data: { id, state: 'UNSUBSCRIBED' } });
    await call('PUT', `/contacts/${id}`, { json: { state: 'ACTIVE', firstName: 'Eve2' } });
    expect((await call('GET', `/contacts/${id}`)).body.data).toMatchObject({ state: 'UNSUBSCRIBED', firstName: 'Eve2' });
  });

  it('refuses to change the email', async () => {
    const answer = await call('PUT', `/contacts/${id}`, { json: { email: 'other@example.org' } });
    expect(answer.body.error.validationErrors).toEqual({ email: expect.any(String) });
  });
});

describe('listing', () => {
  it.each([
    ['filter[state]=unsubscribed', ['eve@example.org']],
    ['state=UNSUBSCRIBED', ['eve@example.org']],
    ['filter[domain]=example.net', ['bob@example.net']],
    ['filter[list]=3', ['eve@example.org', 'new@example.org']],
    ['filter[interest]=1', ['ada@example.com', 'eve@example.org']],
    ['q=*EXAMPLE.ORG', ['eve@example.org', 'new@example.org']],
    ['sortBy=EMAIL&sortDir=DESC&limit=2', ['new@example.org', 'eve@example.org']],
  ])('%s', async (query, emails) => {
    const answer = await call('GET', `/contacts?${query}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((c: Json) => c.email)).toEqual(emails);
  });

  it('pages with a total', async () => {
    const answer = await call('GET', '/contacts?limit=1&offset=1');
    expect(answer.body.paging).toEqual({ offset: 1, limit: 1, results: 1, total: 4 });
    expect(answer.body.sort).toEqual({ sortby: 'email', sortdir: 'asc' });
  });

  it.each(['filter[state]=sleeping', 'filter[list]=abc', 'filter[email]=x', 'filter[$where]=1', 'sortby=created'])('answers VALIDATION_ERROR for %s', async (query) => {
    const answer = await call('GET', `/contacts?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.type).toBe('VALIDATION_ERROR');
  });
});

describe('deletion, permissions and other accounts', () => {
  it('deletes a contact', async () => {
    const { id } = (await call('POST', '/contacts', { json: { email: 'gone@example.com' } })).body.data;
    expect((await call('DELETE', `/contacts/${id}`, { form: '' })).body).toEqual({ href: `/v2/${acme.account}/contacts/${id}`, success: true });
    expect((await call('GET', `/contacts/${id}`)).status).toBe(404);
  });

  it('refuses a user without the permission with 403', async () => {
    const user = (await call('POST', '/users', { json: { email: 'viewer@example.com', password: 'password12', permissions: ['contacts:list'] } })).body.data;
    const { key } = (await call('POST', `/users/${user.id}/keys`)).body.data;
    expect((await call('GET', '/contacts', { key })).status).toBe(200);
    const denied = await call('POST', '/contacts', { key, json: { email: 'no@example.com' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.userMessage).toBe('Missing permission contacts:create');
  });

  it.each([
    ['GET', '/contacts'], ['POST', '/contacts'], ['GET', '/contacts/1'], ['PUT', '/contacts/1'], ['DELETE', '/contacts/1'],
    ['PUT', '/contacts/1/interests/1'], ['DELETE', '/contacts/1/lists/1'], ['POST', '/contacts/1/unsubscribe'], ['POST', '/lists/1/contacts'],
  ])('%s %s with another account\'s key is 403', async (method, path) => {
    const answer = await call(method, path, { key: other.apiKey, ...(method === 'POST' || method === 'PUT' ? { json: { email: 'x@example.com' } } : {}) });
    expect(answer.status).toBe(403);
    expect(answer.body.data).toBeUndefined();
  });
});
