// DKIM keys of sender domains through the account API: made or given, never shown again, and
// the mail from a domain with a key is signed so that a real verifier (mailauth) passes it.
import { generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type CallOptions, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const bearer = (key: string): CallOptions => ({ headers: { authorization: `Bearer ${key}` } });
const api = (method: string, path: string, json?: unknown) =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}/dkim-keys${path}`, { ...bearer(acme.apiKey), ...(json === undefined ? {} : { json }) });

/** Sends one message from `from` and returns it as the relay received it. */
async function sendFrom(from: string, to: string) {
  const before = herald.sink.received.length;
  const answer = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    ...bearer(acme.transactionalKey),
    json: { from: { email: from, name: 'Shop' }, subject: 'Signed?', content: { html: '<p>Hello</p>', text: 'Hello' }, recipients: [{ to: { email: to } }] },
  });
  expect(answer.status).toBe(202);
  return (await herald.sink.waitFor(before + 1)).slice(before).find((m) => m.rcptTo.includes(to))!;
}

/** mailauth's verdict on the message, with DNS answered from the records the API gave. */
async function verify(raw: Buffer, records: Json[]) {
  const resolver = async (name: string) => {
    const record = records.find((r) => r.name === name);
    if (!record) throw Object.assign(new Error(`no TXT ${name}`), { code: 'ENOTFOUND' });
    return [[record.value]];
  };
  const { results } = await dkimVerify(raw, { resolver });
  return results.map((r: Json) => ({ domain: r.signingDomain, result: r.status.result }));
}

it('makes a key for a domain, never shows its private key, and signs mail from that domain', async () => {
  const created = await api('POST', '', { domain: 'Shop.Example.com', selector: 'herald1' });
  expect(created.status).toBe(201);
  const key = created.body.data;
  expect(key).toEqual({
    id: expect.any(Number), domain: 'shop.example.com', selector: 'herald1', publicKey: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
    dnsRecord: { name: 'herald1._domainkey.shop.example.com', type: 'TXT', value: `v=DKIM1; k=rsa; p=${key.publicKey}` }, created: expect.any(String),
  });
  expect(JSON.stringify(created.body)).not.toMatch(/PRIVATE KEY/);
  expect(JSON.stringify((await api('GET', '')).body)).not.toMatch(/PRIVATE KEY/);
  expect((await api('GET', `/${key.id}`)).body.data).toEqual(key);

  const signed = await sendFrom('orders@shop.example.com', 'signed@example.net');
  expect(signed.parsed.headers.get('dkim-signature')).toBeDefined();
  expect(await verify(signed.raw, [key.dnsRecord])).toEqual([{ domain: 'shop.example.com', result: 'pass' }]);
  // A record that is not the key's: the verifier fails it (the check above can fail).
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  expect(await verify(signed.raw, [{ ...key.dnsRecord, value: `v=DKIM1; k=rsa; p=${other}` }])).toEqual([{ domain: 'shop.example.com', result: 'fail' }]);

  const unsigned = await sendFrom('orders@elsewhere.example.org', 'unsigned@example.net');
  expect(unsigned.parsed.headers.get('dkim-signature')).toBeUndefined();

  expect((await api('DELETE', `/${key.id}`)).status).toBe(200);
  expect((await api('GET', `/${key.id}`)).status).toBe(404);
  const afterDelete = await sendFrom('orders@shop.example.com', 'after@example.net');
  expect(afterDelete.parsed.headers.get('dkim-signature')).toBeUndefined();
});

it('takes a private key an operator already has, and refuses a second key for the domain and keys that are not RSA', async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const given = await api('POST', '', { domain: 'mail.example.com', selector: 's2024', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) });
  expect(given.status).toBe(201);
  const signed = await sendFrom('news@mail.example.com', 'given@example.net');
  expect(await verify(signed.raw, [given.body.data.dnsRecord])).toEqual([{ domain: 'mail.example.com', result: 'pass' }]);

  const again = await api('POST', '', { domain: 'MAIL.example.com', selector: 'other' });
  expect(again.status).toBe(409);
  expect(again.body.error).toMatchObject({ type: 'RESOURCE_EXISTS', validationErrors: { domain: expect.any(String) } });

  const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
  const bad = await api('POST', '', { domain: 'ed.example.com', selector: 's', privateKey: ed });
  expect(bad.status).toBe(400);
  expect(bad.body.error.validationErrors).toEqual({ privateKey: expect.stringContaining('RSA') });
  expect((await api('POST', '', { domain: 'x.example.com', selector: 's', privateKey: 'not a key' })).body.error.validationErrors).toEqual({ privateKey: 'Not a PEM private key' });
  const invalid = await api('POST', '', { domain: 'no_dots', selector: 'bad selector!' });
  expect(Object.keys(invalid.body.error.validationErrors).sort()).toEqual(['domain', 'selector']);
});

it('needs account:update to add or delete a key, and account:list to see them', async () => {
  const user = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users`, {
    ...bearer(acme.apiKey), json: { email: 'dkimviewer@example.com', password: 'password12', permissions: ['account:list'] },
  });
  const { key } = (await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users/${user.body.data.id}/keys`, bearer(acme.apiKey))).body.data;
  expect((await callHerald(herald.baseUrl, 'GET', `/v2/${acme.account}/dkim-keys`, bearer(key))).status).toBe(200);
  const denied = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/dkim-keys`, { ...bearer(key), json: { domain: 'z.example.com', selector: 's' } });
  expect(denied.status).toBe(403);
});
