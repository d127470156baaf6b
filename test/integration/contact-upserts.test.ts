// POST /v2/{account}/lists/{id}/contacts as one write: what a create and an update keep, the
// requests that still read the contact first (interests, custom values only cleared), and
// simultaneous upserts and creates of one account.
import type { NewAccount } from '../../core/accounts/accounts';
import type { Store } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
let store: Store;

beforeAll(async () => {
  herald = await startTestHerald();
  store = herald.services.store;
  acme = await herald.newAccount();
  const now = new Date();
  const account = acme.account;
  await store.lists.insertMany([1, 2, 3].map((id) => ({ _id: `${account}:${id}`, account, id, name: `List ${id}`, description: '', tags: [], created: now, lastModified: now, lastMailed: null })));
  await store.interests.insertMany([1, 2].map((id) => ({ _id: `${account}:${id}`, account, id, name: `Interest ${id}`, description: '', expirationDays: 0, created: now, lastModified: now, lastMailed: null })));
  await store.fields.insertMany([
    { _id: `${account}:10`, account, id: 10, name: 'Customer number', tag: 'CUSTOMERNUMBER', format: 'INT', created: now, lastModified: now },
    { _id: `${account}:11`, account, id: 11, name: 'Notes', tag: 'NOTES', format: 'TEXT', created: now, lastModified: now },
  ]);
});
afterAll(() => herald?.stop());

const call = (method: string, path: string, json?: unknown) =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}${path}`, { headers: { authorization: `Bearer ${acme.apiKey}` }, ...(json === undefined ? {} : { json }) });
const stored = (email: string) => store.contacts.findOne({ account: acme.account, email });
const values = (record: Json) => Object.fromEntries(record.customFields.map((f: Json) => [f.id, f.value]));

it('creates a contact with the defaults and updates it, keeping what the update does not name', async () => {
  const created = await call('POST', '/lists/1/contacts', { email: 'Keep@Example.com', firstName: 'Kim', customFields: [{ id: 10, value: 7 }] });
  expect(created.status).toBe(200);
  expect(created.body.data).toMatchObject({
    email: 'keep@example.com', firstName: 'Kim', lastName: '', gender: '', language: '', preferredFormat: 'HTML', source: 'MANUAL', state: 'ACTIVE',
    quality: 0, lists: [{ id: 1, name: 'List 1' }], interests: [], lastMailed: null,
  });
  expect(values(created.body.data)).toEqual({ 10: '7', 11: '' });

  const updated = await call('POST', '/lists/2/contacts', { email: 'keep@example.com', lastName: 'Lee', customFields: [{ id: 11, value: 'vip' }] });
  expect(updated.body.data).toMatchObject({ id: created.body.data.id, firstName: 'Kim', lastName: 'Lee', created: created.body.data.created });
  expect(updated.body.data.lists).toEqual([{ id: 1, name: 'List 1' }, { id: 2, name: 'List 2' }]); // names of its other lists too
  expect(values(updated.body.data)).toEqual({ 10: '7', 11: 'vip' });
  expect(await store.contacts.countDocuments({ account: acme.account, email: 'keep@example.com' })).toBe(1);
});

it('clears custom values and replaces interests (keeping the date of those kept), for new and existing contacts', async () => {
  const cleared = await call('POST', '/lists/1/contacts', { email: 'clear@example.com', customFields: [{ id: 10, value: '' }] });
  expect(cleared.status).toBe(200);
  expect(values(cleared.body.data)).toEqual({ 10: '', 11: '' });
  expect((await stored('clear@example.com'))!.customFields).toEqual({});

  await call('POST', '/lists/1/contacts', { email: 'clear@example.com', customFields: [{ id: 10, value: 5 }, { id: 11, value: 'x' }] });
  const again = await call('POST', '/lists/1/contacts', { email: 'clear@example.com', customFields: [{ id: 10, value: null }] });
  expect(values(again.body.data)).toEqual({ 10: '', 11: 'x' });

  const first = await call('POST', '/lists/1/contacts', { email: 'likes@example.com', interests: [1] });
  const since = first.body.data.interests[0].subscribed;
  const replaced = await call('POST', '/lists/1/contacts', { email: 'likes@example.com', interests: [{ id: 1 }, 2] });
  expect(replaced.body.data.interests).toEqual([
    { id: 1, name: 'Interest 1', subscribed: since }, { id: 2, name: 'Interest 2', subscribed: expect.any(String) },
  ]);
});

it('leaves an unsubscribed contact unsubscribed, and a lists array replaces its lists (the path\'s included)', async () => {
  const { id } = (await call('POST', '/lists/1/contacts', { email: 'gone@example.com' })).body.data;
  await call('POST', `/contacts/${id}/unsubscribe`);
  const answer = await call('POST', '/lists/2/contacts', { email: 'gone@example.com', lists: [3] });
  expect(answer.body.data).toMatchObject({ id, state: 'UNSUBSCRIBED', lists: [{ id: 3, name: 'List 3' }, { id: 2, name: 'List 2' }] });
});

it('answers 404 for an unknown list before it looks at the body, and 400 naming unknown references', async () => {
  expect((await call('POST', '/lists/99/contacts', { email: 'x@example.com', lists: [98] })).status).toBe(404);
  const invalid = await call('POST', '/lists/1/contacts', { email: 'x@example.com', lists: [2, 98], customFields: [{ id: 10, value: 'ten' }] });
  expect(invalid.status).toBe(400);
  expect(invalid.body.error.validationErrors).toEqual({ 'lists[1]': 'No list with id 98', 'customFields[0].value': expect.stringContaining('INT') });
  expect(await stored('x@example.com')).toBeNull();
});

it('makes one contact of simultaneous upserts of a new email, with every list and every custom value', async () => {
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) =>
    call('POST', `/lists/${(i % 3) + 1}/contacts`, { email: 'crowd@example.com', customFields: [{ id: 10 + (i % 2), value: i % 2 ? 'note' : '42' }] })));
  expect(answers.map((a) => a.status)).toEqual(new Array(12).fill(200));
  expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
  const contact = (await stored('crowd@example.com'))!;
  expect([...contact.lists].sort()).toEqual([1, 2, 3]);
  expect(contact.customFields).toEqual({ 10: '42', 11: 'note' });
  expect(await store.contacts.countDocuments({ account: acme.account, email: 'crowd@example.com' })).toBe(1);
});

it('gives simultaneous creates, through either route, ids no other contact has', async () => {
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) =>
    i % 2 ? call('POST', '/contacts', { email: `many${i}@example.com` }) : call('POST', '/lists/1/contacts', { email: `many${i}@example.com` })));
  expect(answers.map((a) => a.status)).toEqual(new Array(40).fill(200));
  const ids = (await store.contacts.find({ account: acme.account }).toArray()).map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const answer of answers) expect((await call('GET', `/contacts/${answer.body.data.id}`)).body.data.email).toBe(answer.body.data.email);
  // A create of an email an upsert made is still 409 with that contact's id.
  const taken = await call('POST', '/contacts', { email: 'many0@example.com' });
  expect(taken.status).toBe(409);
  expect(taken.body.data).toEqual({ id: answers[0].body.data.id });
});

it('answers each of a burst of upserts from two accounts with its own account\'s contact', async () => {
  const other = await herald.newAccount();
  await callHerald(herald.baseUrl, 'POST', `/v2/${other.account}/lists`, { headers: { authorization: `Bearer ${other.apiKey}` }, json: { name: 'Theirs' } });
  const otherList = (await store.lists.findOne({ account: other.account }))!.id;
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => i % 2
    ? callHerald(herald.baseUrl, 'POST', `/v2/${other.account}/lists/${otherList}/contacts`, { headers: { authorization: `Bearer ${other.apiKey}` }, json: { email: `both${i >> 1}@example.com`, firstName: 'Other' } })
    : call('POST', '/lists/1/contacts', { email: `both${i >> 1}@example.com`, firstName: 'Acme' })));
  expect(answers.map((a) => a.status)).toEqual(new Array(20).fill(200));
  answers.forEach((answer, i) => {
    expect(answer.body.data).toMatchObject({ email: `both${i >> 1}@example.com`, firstName: i % 2 ? 'Other' : 'Acme', lists: [{ id: i % 2 ? otherList : 1 }] });
  });
  for (const answer of answers) {
    const account = answer.body.data.firstName === 'Other' ? other.account : acme.account;
    expect(await store.contacts.findOne({ _id: `${account}:${answer.body.data.id}` })).toMatchObject({ account, email: answer.body.data.email });
  }
});
