// Every route of the account API, called with another account's credentials: 403 FORBIDDEN in
// the envelope and nothing read or changed. The routes come from the OpenAPI declarations, which
// openapi.test.ts keeps equal to the app's routes, so a new route is covered when it is added.
import { operations } from '../../api/openapi/operations';
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
  other = await herald.newAccount();
  const headers = { authorization: `Bearer ${other.apiKey}` };
  // Something of each kind in the other account, so a leak would have data to show.
  expect((await callHerald(herald.baseUrl, 'POST', `/v2/${other.account}/lists`, { headers, json: { name: 'Theirs' } })).status).toBe(201);
  expect((await callHerald(herald.baseUrl, 'POST', `/v2/${other.account}/interests`, { headers, json: { name: 'Theirs' } })).status).toBe(201);
  expect((await callHerald(herald.baseUrl, 'POST', `/v2/${other.account}/contacts`, { headers, json: { email: 'their@example.com', lists: [1] } })).status).toBe(200);
});
afterAll(() => herald?.stop());

const SAMPLE_PARAMETERS: Record<string, string> = { id: '1', keyId: '1', listId: '1', memberId: '1', ref: '1', fileName: 'contacts.csv' };
const accountRoutes = operations
  .filter((o) => o.auth === 'account' && o.path.startsWith('/v2/{account}'))
  .map((o) => [o.method.toUpperCase(), o.path] as const);

async function snapshot(account: string) {
  const { store } = herald.services;
  const [contacts, lists, interests, users, tasks] = await Promise.all(
    [store.contacts, store.lists, store.interests, store.users, store.tasks].map((c) => (c as typeof store.contacts).find({ account }).project({ _id: 0 }).toArray()),
  );
  return { contacts, lists, interests, users, tasks };
}

it('covers every account route', () => {
  expect(accountRoutes.length).toBeGreaterThan(40);
});

it.each(accountRoutes)('%s %s with another account\'s key is 403 and shows nothing', async (method, template) => {
  const before = await snapshot(other.account);
  const path = template.replace('{account}', other.account).replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE_PARAMETERS[name] ?? '1');
  const answer = await callHerald(herald.baseUrl, method, path, {
    headers: { authorization: `Bearer ${acme.apiKey}` },
    ...(method === 'POST' || method === 'PUT' ? { json: { email: 'x@example.com', name: 'Mine', password: 'password12' } } : {}),
  });
  expect(answer.status).toBe(403);
  expect(answer.body).toEqual({ href: path, success: false, error: { status: 403, type: 'FORBIDDEN', userMessage: expect.any(String) } });
  expect(await snapshot(other.account)).toEqual(before);
});
