// Transactional keys managed from the account's integrations: issued once (shown only then),
// listed without secrets, and revoked at once; only with the account's permissions.
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type CallOptions } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const bearer = (key: string): CallOptions => ({ headers: { authorization: `Bearer ${key}` } });
const keys = (options: CallOptions, suffix = '', method = 'GET') =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}/integrations/transactional/keys${suffix}`, options);
const send = (key: string) => callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
  ...bearer(key),
  json: { from: { email: 'shop@example.com' }, subject: 'Hi', content: { text: 'Hi' }, recipients: [{ to: { email: 'ada@example.net' } }] },
});

it('issues a key shown only once, lists keys by hint, and a revoked key is refused at once', async () => {
  const created = await keys(bearer(acme.apiKey), '', 'POST');
  expect(created.status).toBe(201);
  const { id, key } = created.body.data;
  expect(key).toMatch(new RegExp(`^${acme.account}-tr-[A-Za-z0-9]{32}$`));
  expect(created.headers.get('location')).toBe(`/v2/${acme.account}/integrations/transactional/keys/${id}`);
  expect((await send(key)).status).toBe(202);

  const listed = await keys(bearer(acme.apiKey));
  expect(listed.status).toBe(200);
  expect(listed.body.data).toEqual(expect.arrayContaining([{ id, hint: `${key.slice(0, acme.account.length + 8)}…`, created: expect.any(String) }]));
  expect(listed.body.data).toHaveLength(2); // the account's first key, and this one
  expect(JSON.stringify(listed.body)).not.toContain(key);

  expect((await keys(bearer(acme.apiKey), `/${id}`, 'DELETE')).status).toBe(200);
  expect((await send(key)).status).toBe(401);
  expect((await send(acme.transactionalKey)).status).toBe(202); // the other key still works
  expect((await keys(bearer(acme.apiKey), `/${id}`, 'DELETE')).status).toBe(404);
});

it('needs account:list to see the keys and account:update to issue or revoke one', async () => {
  const created = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users`, {
    ...bearer(acme.apiKey), json: { email: 'viewer@example.com', password: 'password12', permissions: ['account:list'] },
  });
  const { key: viewerKey } = (await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users/${created.body.data.id}/keys`, bearer(acme.apiKey))).body.data;
  expect((await keys(bearer(viewerKey))).status).toBe(200);
  const denied = await keys(bearer(viewerKey), '', 'POST');
  expect(denied.status).toBe(403);
  expect(denied.body.error).toMatchObject({ type: 'FORBIDDEN', userMessage: 'Missing permission account:update' });
  expect((await keys(bearer(viewerKey), '/1', 'DELETE')).status).toBe(403);
  expect((await send(acme.transactionalKey)).status).toBe(202);
});
