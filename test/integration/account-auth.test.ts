// The account API's door: every credential form, login sessions, ACCOUNT_REQUIRED and
// PASSWORD_EXPIRED, users and their keys, permissions, and no data across accounts.
import http from 'node:http';
import type { NewAccount } from '../../core/accounts/accounts';
import { createUser } from '../../core/accounts/users';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type CallOptions, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
  other = await herald.newAccount();
});
afterAll(() => herald?.stop());

const call = (method: string, path: string, options: CallOptions = {}) => callHerald(herald.baseUrl, method, path, options);
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('credentials', () => {
  it.each([
    ['Authorization: Bearer', (k: string) => ({ authorization: `Bearer ${k}` })],
    ['Authorization without Bearer', (k: string) => ({ authorization: k })],
    ['X-Auth-Token', (k: string) => ({ 'x-auth-token': k })],
    ['Authentication', (k: string) => ({ authentication: `Bearer ${k}` })],
  ])('takes the API key in %s and answers the account info in the envelope', async (_label, header) => {
    const answer = await call('GET', `/v2/${acme.account}`, { headers: header(acme.apiKey) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      href: `/v2/${acme.account}`,
      success: true,
      data: {
        code: acme.account, name: acme.account, plan: { state: 'ACTIVE', contacts: { limit: null, active: 0 }, emails: { available: null } }, retention: { days: 45 },
      },
    });
  });

  it('keeps an idle connection 65 s and says so (longer than a load balancer\'s 60 s: the server never closes one a client is about to use)', async () => {
    const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
      http.get(`${herald.baseUrl}/v2/${acme.account}`, { headers: bearer(acme.apiKey), agent: new http.Agent({ keepAlive: true }) }, (response) => {
        response.resume();
        resolve(response.headers);
      }).on('error', reject);
    });
    expect([headers.connection, headers['keep-alive']]).toEqual(['keep-alive', 'timeout=65']);
  });

  it('counts the account\'s active contacts in plan.contacts.active', async () => {
    const other = await herald.newAccount();
    for (const email of ['a@example.org', 'b@example.org', 'c@example.org']) {
      expect((await call('POST', `/v2/${other.account}/contacts`, { headers: bearer(other.apiKey), json: { email } })).status).toBe(200);
    }
    await herald.services.store.contacts.updateOne({ account: other.account, email: 'c@example.org' }, { $set: { state: 'UNSUBSCRIBED' } });
    const answer = await call('GET', `/v2/${other.account}`, { headers: bearer(other.apiKey) });
    expect((answer.body as { data: { plan: { contacts: unknown } } }).data.plan.contacts).toEqual({ limit: null, active: 2 });
  });

  it.each([
    ['no credential', {}],
    ['an unknown key', bearer(`${'x'.repeat(5)}-abcdefghijklmnopqrstuvwxyz123456`)],
    ['a transactional key', {} as Record<string, string>],
  ])('answers 401 UNAUTHORIZED for %s', async (label, headers) => {
    const answer = await call('GET', `/v2/${acme.account}`, { headers: label === 'a transactional key' ? bearer(acme.transactionalKey) : headers });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ href: `/v2/${acme.account}`, success: false, error: { status: 401, type: 'UNAUTHORIZED', userMessage: expect.any(String) } });
  });

  it('accepts a request carrying a valid key and another header at once', async () => {
    const answer = await call('GET', `/v2/${acme.account}`, { headers: { ...bearer(acme.apiKey), 'x-auth-token': 'stale-token-000000000000000000' } });
    expect(answer.status).toBe(200);
  });
});

describe('login and logout', () => {
  let email: string;
  beforeAll(async () => {
    email = `ana@${acme.account}.example`;
    expect((await call('POST', `/v2/${acme.account}/users`, { headers: bearer(acme.apiKey), json: { email, password: 'correct horse 1' } })).status).toBe(201);
  });

  it.each(['json', 'form'])('answers 201 with a token (%s body) that works in X-Auth-Token and ?token=, until logout', async (encoding) => {
    const credentials = { user: email.toUpperCase(), password: 'correct horse 1' };
    const answer = await call('POST', '/v2/login', encoding === 'json'
      ? { json: credentials }
      : { form: new URLSearchParams(credentials).toString() });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      url: '/v2/login',
      success: true,
      data: { token: expect.stringMatching(/^[A-Za-z0-9]{32}$/), tokenExpiration: 3600, user: 'ana', account: acme.account, acl: { [acme.account]: expect.arrayContaining(['contacts:list', 'lists:list', 'tasks:cancel']) } },
    });
    const { token } = answer.body.data;
    expect((await call('GET', `/v2/${acme.account}`, { headers: { 'x-auth-token': token } })).status).toBe(200);
    expect((await call('GET', `/v2/${acme.account}?token=${token}`)).status).toBe(200);
    const out = await call('POST', '/v2/logout', { headers: { 'x-auth-token': token } });
    expect(out).toMatchObject({ status: 200, body: { url: '/v2/logout', success: true } });
    expect((await call('GET', `/v2/${acme.account}`, { headers: { 'x-auth-token': token } })).status).toBe(401);
    expect((await call('POST', '/v2/logout', { headers: { 'x-auth-token': token } })).status).toBe(401);
  });

  it('logs in as user@account, and with only an apikey', async () => {
    expect((await call('POST', '/v2/login', { json: { user: `ana@${acme.account}`, password: 'correct horse 1' } })).status).toBe(201);
    const byKey = await call('POST', '/v2/login', { json: { apikey: acme.apiKey } });
    expect(byKey.status).toBe(201);
    expect(byKey.body.data).toMatchObject({ user: 'owner', account: acme.account });
  });

  it('answers 401 for a wrong password or an unknown user', async () => {
    for (const json of [{ user: email, password: 'wrong password' }, { user: 'nobody@example.com', password: 'whatever1' }]) {
      const answer = await call('POST', '/v2/login', { json });
      expect(answer.status).toBe(401);
      expect(answer.body.error.type).toBe('UNAUTHORIZED');
    }
  });

  it('answers 409 ACCOUNT_REQUIRED listing the accounts in error.data and data, then logs in to the one named', async () => {
    const shared = 'multi@example.com';
    await createUser(herald.services.store, acme.account, { email: shared, password: 'same password' });
    await createUser(herald.services.store, other.account, { email: shared, password: 'same password' });
    const answer = await call('POST', '/v2/login', { json: { user: shared, password: 'same password' } });
    const accounts = [acme.account, other.account].sort();
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({
      href: '/v2/login', success: false, data: accounts,
      error: { status: 409, type: 'ACCOUNT_REQUIRED', userMessage: expect.any(String), data: accounts },
    });
    const named = await call('POST', '/v2/login', { json: { user: shared, password: 'same password', account: other.account } });
    expect(named.status).toBe(201);
    expect(named.body.data.account).toBe(other.account);
  });

  it('answers PASSWORD_EXPIRED until a newPassword is given', async () => {
    await createUser(herald.services.store, acme.account, { email: 'old@example.com', password: 'old password', passwordExpired: true });
    const expired = await call('POST', '/v2/login', { json: { user: 'old@example.com', password: 'old password' } });
    expect(expired.status).toBe(401);
    expect(expired.body.error.type).toBe('PASSWORD_EXPIRED');
    const renewed = await call('POST', '/v2/login', { form: 'user=old%40example.com&password=old+password&newPassword=new+password' });
    expect(renewed.status).toBe(201);
    expect((await call('POST', '/v2/login', { json: { user: 'old@example.com', password: 'old password' } })).status).toBe(401);
    expect((await call('POST', '/v2/login', { json: { user: 'old@example.com', password: 'new password' } })).status).toBe(201);
  });

  it('answers VALIDATION_ERROR naming what a login lacks', async () => {
    const answer = await call('POST', '/v2/login', { json: {} });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({ status: 400, type: 'VALIDATION_ERROR', userMessage: expect.any(String), validationErrors: { user: expect.any(String), password: expect.any(String) } });
  });
});

describe('users, keys and permissions', () => {
  it('creates a user with limited permissions whose key is refused elsewhere with 403 FORBIDDEN', async () => {
    const created = await call('POST', `/v2/${acme.account}/users`, {
      headers: bearer(acme.apiKey), form: 'email=reader%40example.com&password=reader+pass&permissions[]=users:list',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v2/${acme.account}/users/${created.body.data.id}`);
    expect(created.body.data).toMatchObject({ email: 'reader@example.com', permissions: ['users:list'] });
    const key = await call('POST', `/v2/${acme.account}/users/${created.body.data.id}/keys`, { headers: bearer(acme.apiKey) });
    expect(key.status).toBe(201);
    expect(key.body.data).toEqual({ id: expect.any(Number), key: expect.stringMatching(new RegExp(`^${acme.account}-[A-Za-z0-9]{32}$`)) });
    const readerKey = key.body.data.key;

    expect((await call('GET', `/v2/${acme.account}/users`, { headers: bearer(readerKey) })).status).toBe(200);
    const denied = await call('POST', `/v2/${acme.account}/users`, { headers: bearer(readerKey), json: { email: 'x@example.com', password: 'password1' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toEqual({ status: 403, type: 'FORBIDDEN', userMessage: 'Missing permission users:create' });

    // Keys are listed without their secret, and a deleted key fails at once.
    const keys = await call('GET', `/v2/${acme.account}/users/${created.body.data.id}/keys`, { headers: bearer(readerKey) });
    expect(keys.body.data).toEqual([{ id: key.body.data.id, hint: expect.stringMatching(/…$/), created: expect.any(String) }]);
    expect(JSON.stringify(keys.body)).not.toContain(readerKey);
    expect((await call('DELETE', `/v2/${acme.account}/users/${created.body.data.id}/keys/${key.body.data.id}`, { headers: bearer(acme.apiKey), form: '' })).status).toBe(200);
    expect((await call('GET', `/v2/${acme.account}/users`, { headers: bearer(readerKey) })).status).toBe(401);
  });

  it('never lets a user grant permissions it does not hold', async () => {
    const limited = await call('POST', `/v2/${acme.account}/users`, {
      headers: bearer(acme.apiKey), json: { email: 'admin2@example.com', password: 'password12', permissions: ['users:create', 'users:list', 'users:update'] },
    });
    const { key } = (await call('POST', `/v2/${acme.account}/users/${limited.body.data.id}/keys`, { headers: bearer(acme.apiKey) })).body.data;
    const escalate = await call('POST', `/v2/${acme.account}/users`, { headers: bearer(key), json: { email: 'evil@example.com', password: 'password12' } });
    expect(escalate.status).toBe(403);
    const fine = await call('POST', `/v2/${acme.account}/users`, { headers: bearer(key), json: { email: 'ok@example.com', password: 'password12', permissions: ['users:list'] } });
    expect(fine.status).toBe(201);
  });

  it('refuses a duplicate email with 409 RESOURCE_EXISTS and a bad one with VALIDATION_ERROR', async () => {
    const body = { email: 'dup@example.com', password: 'password12' };
    expect((await call('POST', `/v2/${acme.account}/users`, { headers: bearer(acme.apiKey), json: body })).status).toBe(201);
    const dup = await call('POST', `/v2/${acme.account}/users`, { headers: bearer(acme.apiKey), json: { ...body, email: 'DUP@example.com' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ type: 'RESOURCE_EXISTS', validationErrors: { email: expect.any(String) } });
    const bad = await call('POST', `/v2/${acme.account}/users`, { headers: bearer(acme.apiKey), json: { email: 'not-an-email', password: 'short', permissions: ['root:all'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      type: 'VALIDATION_ERROR',
      validationErrors: { email: 'Invalid email address', password: 'At least 8 characters', 'permissions[0]': expect.stringContaining('Must be one of') },
    });
  });

  it('deleting a user ends its keys and sessions at once', async () => {
    const user = (await call('POST', `/v2/${acme.account}/users`, { headers: bearer(acme.apiKey), json: { email: 'temp@example.com', password: 'password12' } })).body.data;
    const { key } = (await call('POST', `/v2/${acme.account}/users/${user.id}/keys`, { headers: bearer(acme.apiKey) })).body.data;
    const { token } = (await call('POST', '/v2/login', { json: { user: 'temp@example.com', password: 'password12' } })).body.data;
    expect((await call('DELETE', `/v2/${acme.account}/users/${user.id}`, { headers: bearer(acme.apiKey) })).status).toBe(200);
    expect((await call('GET', `/v2/${acme.account}`, { headers: bearer(key) })).status).toBe(401);
    expect((await call('GET', `/v2/${acme.account}`, { headers: { 'x-auth-token': token } })).status).toBe(401);
    expect((await call('GET', `/v2/${acme.account}/users/${user.id}`, { headers: bearer(acme.apiKey) })).status).toBe(404);
  });

  it('updates a user from a form body and answers only what changed; a PUT with no body changes nothing', async () => {
    const user = (await call('POST', `/v2/${acme.account}/users`, { headers: bearer(acme.apiKey), json: { email: 'put@example.com', password: 'password12' } })).body.data;
    const put = await call('PUT', `/v2/${acme.account}/users/${user.id}`, { headers: bearer(acme.apiKey), form: 'permissions[]=contacts:list&permissions[]=lists:list' });
    expect(put.body).toEqual({ href: `/v2/${acme.account}/users/${user.id}`, success: true, data: { id: user.id, permissions: ['contacts:list', 'lists:list'] } });
    const empty = await fetch(`${herald.baseUrl}/v2/${acme.account}/users/${user.id}`, { method: 'PUT', headers: { ...bearer(acme.apiKey), 'content-type': 'application/json' } });
    expect(empty.status).toBe(200);
    expect((await call('GET', `/v2/${acme.account}/users/${user.id}`, { headers: bearer(acme.apiKey) })).body.data.permissions).toEqual(['contacts:list', 'lists:list']);
  });
});

describe('listing options as the original clients send them', () => {
  it('takes sortBy/sortDir in any letter case, limit up to 1000, and echoes sort and paging', async () => {
    const answer = await call('GET', `/v2/${acme.account}/users?SortBy=EMAIL&sortDir=DESC&limit=1000&offset=0`, { headers: bearer(acme.apiKey) });
    expect(answer.status).toBe(200);
    expect(answer.body.sort).toEqual({ sortby: 'email', sortdir: 'desc' });
    expect(answer.body.paging).toEqual({ offset: 0, limit: 1000, results: answer.body.data.length, total: answer.body.data.length });
    const emails = answer.body.data.map((u: Json) => u.email).filter(Boolean);
    expect(emails).toEqual([...emails].sort().reverse());
  });

  it('finds by q with * wildcards', async () => {
    const answer = await call('GET', `/v2/${acme.account}/users?q=*put*`, { headers: bearer(acme.apiKey) });
    expect(answer.body).toMatchObject({ success: true });
    expect(answer.body.data.map((u: Json) => u.email)).toEqual(['put@example.com']);
  });

  it.each([
    ['sortby=password', 'sortby'],
    ['filter[$where]=1', 'filter[$where]'],
    ['filter[email][$ne]=x', 'filter[email]'],
    ['limit=1001', 'limit'],
    ['offset=-1', 'offset'],
    ['sortdir=sideways', 'sortdir'],
  ])('answers VALIDATION_ERROR for %s, never reaching the store', async (query, field) => {
    const answer = await call('GET', `/v2/${acme.account}/users?${query}`, { headers: bearer(acme.apiKey) });
    expect(answer.status).toBe(400);
    expect(answer.body.error.type).toBe('VALIDATION_ERROR');
    expect(Object.keys(answer.body.error.validationErrors)).toContain(field);
  });
});

describe('bodies and media types', () => {
  it('takes POST with Content-Type application/json and an empty body, and refuses another body type with 415', async () => {
    const me = (await call('GET', `/v2/${acme.account}/users?filter=&q=`, { headers: bearer(acme.apiKey) })).body.data.find((u: Json) => u.username === 'owner');
    const empty = await fetch(`${herald.baseUrl}/v2/${acme.account}/users/${me.id}/keys`, { method: 'POST', headers: { ...bearer(acme.apiKey), 'content-type': 'application/json' } });
    expect(empty.status).toBe(201);
    const xml = await fetch(`${herald.baseUrl}/v2/${acme.account}/users`, { method: 'POST', headers: { ...bearer(acme.apiKey), 'content-type': 'text/xml' }, body: '<user/>' });
    expect(xml.status).toBe(415);
    expect(((await xml.json()) as Json).error.type).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('reads a form\'s single value for an array (tags=a as tags[]=a) and its numbers as numbers, as PHP clients send them', async () => {
    const single = await call('POST', `/v2/${acme.account}/lists`, { headers: bearer(acme.apiKey), form: 'name=Formed&tags=a' });
    expect([single.status, single.body.data.tags]).toEqual([201, ['a']]);
    const bracketed = await call('POST', `/v2/${acme.account}/lists`, { headers: bearer(acme.apiKey), form: 'name=Bracketed&tags[]=a&tags[]=b' });
    expect([bracketed.status, bracketed.body.data.tags]).toEqual([201, ['a', 'b']]);
    const interest = await call('POST', `/v2/${acme.account}/interests`, { headers: bearer(acme.apiKey), form: 'name=Formed&expirationDays=30' });
    expect([interest.status, interest.body.data.expirationDays]).toEqual([201, 30]);
    // Routes that tidy the body before validating it (campaigns, contacts, webhooks) read forms the same way.
    const campaign = await call('POST', `/v2/${acme.account}/campaigns`, { headers: bearer(acme.apiKey), form: 'name=Formed&tags=news' });
    expect([campaign.status, campaign.body.data.tags]).toEqual([200, ['news']]);
    const notANumber = await call('POST', `/v2/${acme.account}/interests`, { headers: bearer(acme.apiKey), form: 'name=Bad&expirationDays=soon' });
    expect([notANumber.status, notANumber.body.error.type]).toEqual([400, 'VALIDATION_ERROR']);
    // JSON keeps its types: a string where an array is due is refused.
    const json = await call('POST', `/v2/${acme.account}/lists`, { headers: bearer(acme.apiKey), json: { name: 'Json', tags: 'a' } });
    expect(json.status).toBe(400);
  });

  it('refuses a JSON body of null (or a lone value) instead of reading it as empty: no export starts', async () => {
    const tasksBefore = await herald.services.store.tasks.countDocuments({ account: acme.account });
    for (const body of ['null', '"all"', '1']) {
      const answer = await fetch(`${herald.baseUrl}/v2/${acme.account}/contacts/export`, { method: 'POST', headers: { ...bearer(acme.apiKey), 'content-type': 'application/json' }, body });
      expect([body, answer.status, ((await answer.json()) as Json).error.type]).toEqual([body, 400, 'BAD_REQUEST']);
    }
    expect(await herald.services.store.tasks.countDocuments({ account: acme.account })).toBe(tasksBefore);
  });
});

describe('paths and methods', () => {
  it('answers a known /v2 path with another method 405 METHOD_NOT_ALLOWED, with Allow, in the envelope', async () => {
    const answer = await call('PATCH', `/v2/${acme.account}/users`, { headers: bearer(acme.apiKey) });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('HEAD, GET, POST');
    expect(answer.body).toEqual({ href: `/v2/${acme.account}/users`, success: false, error: { status: 405, type: 'METHOD_NOT_ALLOWED', userMessage: expect.any(String) } });
  });

  it('offers in OPTIONS only the methods a path serves: /v2/login is not an account, /contacts/export is not a contact', async () => {
    const options = async (path: string) => (await fetch(`${herald.baseUrl}${path}`, { method: 'OPTIONS', headers: bearer(acme.apiKey) })).headers.get('allow');
    expect(await options('/v2/login')).toBe('POST');
    expect(await options(`/v2/${acme.account}/contacts/export`)).toBe('POST');
    expect(await options(`/v2/${acme.account}/contacts/1`)).toBe('HEAD, GET, PUT, DELETE');
    const getLogin = await call('GET', '/v2/login', { headers: bearer(acme.apiKey) });
    expect(getLogin.status).toBe(405);
    expect(getLogin.headers.get('allow')).toBe('POST');
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const answer = await call(method, `/v2/${acme.account}/contacts/export`, { headers: bearer(acme.apiKey) });
      expect([method, answer.status, answer.headers.get('allow')]).toEqual([method, 405, 'POST']);
    }
    // Not an account name (Herald's are lowercase letters and digits): no route, whatever the key.
    expect((await call('GET', '/v2/openapi.json/users', { headers: bearer(acme.apiKey) })).status).toBe(404);
  });
});

describe('another account', () => {
  const routes: Array<[string, string]> = [
    ['GET', ''], ['GET', '/users'], ['POST', '/users'], ['GET', '/users/1'], ['PUT', '/users/1'], ['DELETE', '/users/2'],
    ['GET', '/users/1/keys'], ['POST', '/users/1/keys'], ['DELETE', '/users/1/keys/1'],
  ];
  it.each(routes)('%s /v2/<other>%s with this account\'s key is 403 and shows nothing', async (method, path) => {
    const answer = await call(method, `/v2/${other.account}${path}`, { headers: bearer(acme.apiKey), ...(method === 'POST' || method === 'PUT' ? { json: { email: 'x@example.com', password: 'password12' } } : {}) });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ href: `/v2/${other.account}${path}`, success: false, error: { status: 403, type: 'FORBIDDEN', userMessage: expect.any(String) } });
  });

  it('left the other account untouched', async () => {
    const users = await call('GET', `/v2/${other.account}/users`, { headers: bearer(other.apiKey) });
    expect(users.body.data.map((u: Json) => u.email)).toEqual([null, 'multi@example.com']);
  });
});
