// Credentials are looked up in batches shared by requests arriving together (adapters/batching/read-batch.ts),
// never cached (a process remembers only which user a credential it has seen belongs to, which
// never changes, so it reads the credential and the user together): a revoked key, a deleted
// user, a narrowed permission or an ended session takes effect at once, for a burst of requests,
// in this API process and in another on the same store, each of which has seen the credential.
import type { Herald } from '../../composition/herald';
import type { NewAccount } from '../../core/accounts/accounts';
import { composeTestHerald, listenLocally, startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type CallOptions } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
/** A second API process: its own app and store connection, on the same database. */
let otherHerald: Herald;
let otherUrl: string;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
  const { store, taskQueue } = herald.services;
  otherHerald = composeTestHerald({ HERALD_MONGODB_DATABASE: store.db.databaseName, HERALD_TASK_QUEUE: taskQueue });
  otherUrl = await listenLocally(await otherHerald.apiServer());
});
afterAll(async () => {
  await otherHerald?.close();
  await herald?.stop();
});

const bearer = (key: string): CallOptions => ({ headers: { authorization: `Bearer ${key}` } });
/** Twenty requests at once, half to each API process; their statuses. */
const burst = (path: string, options: CallOptions) => Promise.all(Array.from({ length: 20 }, (_, i) =>
  callHerald(i % 2 ? otherUrl : herald.baseUrl, 'GET', `/v2/${acme.account}${path}`, options).then((a) => a.status)));

let users = 0;
async function newUser(permissions: string[]): Promise<{ id: number; key: string }> {
  const email = `user${(users += 1)}@example.com`;
  const user = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users`, { ...bearer(acme.apiKey), json: { email, password: 'password12', permissions } });
  expect(user.status).toBe(201);
  const { key } = (await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users/${user.body.data.id}/keys`, bearer(acme.apiKey))).body.data;
  return { id: user.body.data.id, key };
}

it('serves a burst of requests with one key in both processes, and refuses the whole next burst once the key is revoked', async () => {
  const user = await newUser(['users:list']);
  expect(await burst('/users', bearer(user.key))).toEqual(new Array(20).fill(200));
  const [keyId] = (await callHerald(herald.baseUrl, 'GET', `/v2/${acme.account}/users/${user.id}/keys`, bearer(acme.apiKey))).body.data.map((k: { id: number }) => k.id);
  expect((await callHerald(otherUrl, 'DELETE', `/v2/${acme.account}/users/${user.id}/keys/${keyId}`, bearer(acme.apiKey))).status).toBe(200);
  expect(await burst('/users', bearer(user.key))).toEqual(new Array(20).fill(401));
});

it('refuses the next burst once the user is deleted, or its permission taken away', async () => {
  const narrowed = await newUser(['users:list', 'lists:list']);
  const deleted = await newUser(['users:list']);
  expect(await burst('/lists', bearer(narrowed.key))).toEqual(new Array(20).fill(200));
  expect((await callHerald(otherUrl, 'PUT', `/v2/${acme.account}/users/${narrowed.id}`, { ...bearer(acme.apiKey), json: { permissions: ['users:list'] } })).status).toBe(200);
  expect(await burst('/lists', bearer(narrowed.key))).toEqual(new Array(20).fill(403));
  expect((await callHerald(herald.baseUrl, 'DELETE', `/v2/${acme.account}/users/${deleted.id}`, bearer(acme.apiKey))).status).toBe(200);
  expect(await burst('/users', bearer(deleted.key))).toEqual(new Array(20).fill(401));
});

it('answers each request of a mixed burst by its own credential', async () => {
  const reader = await newUser(['users:list']);
  const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) =>
    callHerald(i % 2 ? otherUrl : herald.baseUrl, 'GET', `/v2/${acme.account}/lists`, bearer([acme.apiKey, reader.key, `${acme.account}-${'x'.repeat(32)}`][i % 3]))
      .then((a) => a.status)));
  expect(statuses).toEqual(Array.from({ length: 30 }, (_, i) => [200, 403, 401][i % 3]));
});

it('refuses the whole next burst with a session token once the session is ended', async () => {
  const email = `session${(users += 1)}@example.com`;
  await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users`, { ...bearer(acme.apiKey), json: { email, password: 'password12' } });
  const { token } = (await callHerald(herald.baseUrl, 'POST', '/v2/login', { json: { user: email, password: 'password12', account: acme.account } })).body.data;
  expect(await burst('/lists', { headers: { 'x-auth-token': token } })).toEqual(new Array(20).fill(200));
  expect((await callHerald(otherUrl, 'POST', '/v2/logout', { headers: { 'x-auth-token': token } })).status).toBe(200);
  expect(await burst('/lists', { headers: { 'x-auth-token': token } })).toEqual(new Array(20).fill(401));
});
