// The webhook endpoints of the account API over HTTP: create (JSON and form), read, list, change,
// rotate the secret, delete; validation (URL, scheme, non-public addresses with the flag off,
// event types); the secret shown only on create and rotate; other accounts' endpoints invisible.
import type { Herald } from '../../composition/herald';
import type { NewAccount } from '../../core/accounts/accounts';
import { TRACK_TYPES } from '../../core/tracking/events';
import { composeTestHerald, listenLocally, startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type CallOptions } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  [acme, other] = await Promise.all([herald.newAccount(), herald.newAccount()]);
});
afterAll(() => herald?.stop());

const as = (who: NewAccount) => (method: string, path: string, options: CallOptions = {}) =>
  callHerald(herald.baseUrl, method, `/v2/${who.account}${path}`, { ...options, headers: { authorization: `Bearer ${who.apiKey}`, ...options.headers } });

describe('webhook endpoints', () => {
  it('creates one from JSON with every event type by default, the secret shown only in that answer', async () => {
    const created = await as(acme)('POST', '/webhooks', { json: { url: 'http://127.0.0.1:9/hooks#part' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v2/${acme.account}/webhooks/${created.body.data.id}`);
    expect(created.body.data).toEqual({
      id: expect.any(Number), url: 'http://127.0.0.1:9/hooks', events: [...TRACK_TYPES], enabled: true, secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32}$/),
    });
    const { id } = created.body.data;
    const read = await as(acme)('GET', `/webhooks/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ id, url: 'http://127.0.0.1:9/hooks', events: [...TRACK_TYPES], enabled: true });
    const list = await as(acme)('GET', '/webhooks');
    expect(list.body.data).toContainEqual(read.body.data);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    // Stored in clear (signing needs it), never shown again.
    expect((await herald.services.store.webhooks.findOne({ account: acme.account, id }))?.secret).toBe(created.body.data.secret);
  });

  it('creates one from a form, with chosen event types and disabled', async () => {
    const form = 'url=https%3A%2F%2F127.0.0.1%2Fx&events%5B%5D=track.mail.sent&events%5B%5D=track.mail.clicked&enabled=false';
    const created = await as(acme)('POST', '/webhooks', { form });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ url: 'https://127.0.0.1/x', events: ['track.mail.sent', 'track.mail.clicked'], enabled: false });
    const commas = await as(acme)('POST', '/webhooks', { form: 'url=http%3A%2F%2F127.0.0.1%2Fy&events=track.mail.opened,track.mail.bounced' });
    expect(commas.body.data.events).toEqual(['track.mail.bounced', 'track.mail.opened']);
  });

  it('changes url, events and enabled with PUT, answering without the secret', async () => {
    const { id } = (await as(acme)('POST', '/webhooks', { json: { url: 'http://127.0.0.1:9/a', events: ['track.mail.sent'] } })).body.data;
    const changed = await as(acme)('PUT', `/webhooks/${id}`, { json: { url: 'http://127.0.0.1:9/b', events: ['track.mail.opened', 'track.mail.sent'], enabled: false } });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toEqual({ id, url: 'http://127.0.0.1:9/b', events: ['track.mail.sent', 'track.mail.opened'], enabled: false });
    const partly = await as(acme)('PUT', `/webhooks/${id}`, { form: 'enabled=1' });
    expect(partly.body.data).toEqual({ id, url: 'http://127.0.0.1:9/b', events: ['track.mail.sent', 'track.mail.opened'], enabled: true });
    expect((await as(acme)('GET', `/webhooks/${id}`)).body.data.enabled).toBe(true);
  });

  it('rotates the secret: a new one, shown in that answer only', async () => {
    const created = (await as(acme)('POST', '/webhooks', { json: { url: 'http://127.0.0.1:9/r' } })).body.data;
    const rotated = await as(acme)('POST', `/webhooks/${created.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toMatchObject({ id: created.id, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.data.secret).not.toBe(created.secret);
    expect((await as(acme)('GET', `/webhooks/${created.id}`)).body.data.secret).toBeUndefined();
  });

  it('deletes one: then it is 404 everywhere', async () => {
    const { id } = (await as(acme)('POST', '/webhooks', { json: { url: 'http://127.0.0.1:9/d' } })).body.data;
    expect((await as(acme)('DELETE', `/webhooks/${id}`)).status).toBe(200);
    for (const [method, path] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/rotate-secret'], ['GET', '/deliveries']]) {
      const answer = await as(acme)(method, `/webhooks/${id}${path}`, method === 'PUT' ? { json: { enabled: false } } : {});
      expect([method, path, answer.status, answer.body.error.type]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
  });

  it('shows no endpoint of another account: its ids are 404, its path 403, its list empty', async () => {
    const mine = (await as(acme)('POST', '/webhooks', { json: { url: 'http://127.0.0.1:9/mine' } })).body.data;
    for (const [method, path] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/rotate-secret'], ['GET', '/deliveries']]) {
      const answer = await as(other)(method, `/webhooks/${mine.id}${path}`, method === 'PUT' ? { json: { url: 'http://127.0.0.1:9/stolen' } } : {});
      expect([method, path, answer.status]).toEqual([method, path, 404]);
    }
    expect((await as(other)('GET', '/webhooks')).body.data).toEqual([]);
    const theirPath = await callHerald(herald.baseUrl, 'GET', `/v2/${acme.account}/webhooks/${mine.id}`, { headers: { authorization: `Bearer ${other.apiKey}` } });
    expect(theirPath.status).toBe(403);
    expect((await as(acme)('GET', `/webhooks/${mine.id}`)).body.data.url).toBe('http://127.0.0.1:9/mine'); // untouched
  });

  it('refuses a malformed URL, a scheme other than http(s), an unknown event type and an empty list', async () => {
    const cases: Array<[unknown, string]> = [
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://example.com/hooks' }, 'url'],
      [{ url: 'javascript:alert(1)' }, 'url'],
      [{ url: 'file:///etc/passwd' }, 'url'],
      [{}, 'url'],
      [{ url: 'http://127.0.0.1:9/', events: ['track.mail.sent', 'track.mail.teleported'] }, 'events[1]'],
      [{ url: 'http://127.0.0.1:9/', events: [] }, 'events'],
      [{ url: 'http://127.0.0.1:9/', enabled: 'perhaps' }, 'enabled'],
    ];
    const before = await herald.services.store.webhooks.countDocuments({ account: acme.account });
    for (const [json, field] of cases) {
      const answer = await as(acme)('POST', '/webhooks', { json });
      expect([json, answer.status, answer.body.error.type]).toEqual([json, 400, 'VALIDATION_ERROR']);
      expect(Object.keys(answer.body.error.validationErrors)).toContain(field);
    }
    const { id } = (await as(acme)('POST', '/webhooks', { json: { url: 'http://127.0.0.1:9/v' } })).body.data;
    const bad = await as(acme)('PUT', `/webhooks/${id}`, { json: { url: 'gopher://127.0.0.1/' } });
    expect([bad.status, bad.body.error.type]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await as(acme)('GET', `/webhooks/${id}`)).body.data.url).toBe('http://127.0.0.1:9/v'); // nothing changed
    expect(await herald.services.store.webhooks.countDocuments({ account: acme.account })).toBe(before + 1);
  });
});

describe('with HERALD_WEBHOOK_ALLOW_PRIVATE off', () => {
  let strictUrl: string;
  let strict: Herald;
  beforeAll(async () => {
    const { store, taskQueue } = herald.services;
    strict = composeTestHerald({ HERALD_MONGODB_DATABASE: store.db.databaseName, HERALD_TASK_QUEUE: taskQueue, HERALD_WEBHOOK_ALLOW_PRIVATE: 'false' });
    strictUrl = await listenLocally(await strict.apiServer());
  });
  afterAll(() => strict.close());

  const post = (url: string) => callHerald(strictUrl, 'POST', `/v2/${acme.account}/webhooks`, { headers: { authorization: `Bearer ${acme.apiKey}` }, json: { url } });

  it('refuses loopback, private, link-local, unique-local, CGNAT and unspecified addresses, and names resolving to them', async () => {
    const refused = [
      'http://127.0.0.1:8080/hooks', 'http://localhost:8080/hooks', 'http://10.1.2.3/', 'http://172.20.0.5/', 'http://192.168.1.10/',
      'http://169.254.169.254/latest/meta-data', 'http://100.64.0.1/', 'http://0.0.0.0/', 'http://[::1]/', 'http://[fd12:3456::1]/',
      'http://[fe80::1]/', 'http://[::ffff:127.0.0.1]/', 'http://0x7f.1/', 'https://2130706433/',
    ];
    for (const url of refused) {
      const answer = await post(url);
      expect([url, answer.status, answer.body.error.type]).toEqual([url, 400, 'VALIDATION_ERROR']);
      expect(answer.body.error.validationErrors.url).toMatch(/not allowed|does not resolve/);
    }
    const changed = await callHerald(strictUrl, 'POST', `/v2/${acme.account}/webhooks`, { headers: { authorization: `Bearer ${acme.apiKey}` }, json: { url: 'http://93.184.215.14/hooks' } });
    expect(changed.status).toBe(201); // a public address is fine
    const put = await callHerald(strictUrl, 'PUT', `/v2/${acme.account}/webhooks/${changed.body.data.id}`, {
      headers: { authorization: `Bearer ${acme.apiKey}` }, json: { url: 'http://192.168.0.1/' },
    });
    expect([put.status, put.body.error.type]).toEqual([400, 'VALIDATION_ERROR']);
    await as(acme)('DELETE', `/webhooks/${changed.body.data.id}`);
  });
});
