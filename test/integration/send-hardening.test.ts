// POST /v1/mail/send against hostile input on the real stack: limits at the door, JSON errors
// for every path and method, closed header injection, and only validated fields stored.
import type { NewAccount } from '../../core/accounts/accounts';
import { readHttpBody } from '../../core/transactional/request';
import { startTestHerald, type TestHerald } from '../support/herald';

let herald: TestHerald;
let account: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  account = await herald.newAccount();
});
afterAll(() => herald?.stop());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = any;

const send = (body: unknown) => fetch(`${herald.baseUrl}/v1/mail/send`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${account.transactionalKey}` },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

const minimal = (to: string) => ({
  from: { email: 'shop@example.com' },
  subject: 'Hello',
  content: { text: 'Hi' },
  recipients: [{ to: { email: to } }],
});

const stored = () => herald.services.store.sendRequests.countDocuments({ account: account.account });

it('refuses a body nested 5,000 levels deep with 400, and the store keeps answering', async () => {
  const before = await stored();
  const deep = JSON.stringify({ ...minimal('deep@example.net'), substitutions: { x: 'DEEP' } })
    .replace('"DEEP"', '['.repeat(5000) + ']'.repeat(5000));
  const response = await send(deep);
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({
    success: false, error: { status: 400, type: 'bad_request', message: expect.stringContaining('Nesting deeper than 32') },
  });
  expect(await stored()).toBe(before);
  expect(await herald.services.store.db.command({ ping: 1 })).toMatchObject({ ok: 1 });
  const sent = herald.sink.received.length;
  expect((await send(minimal('after-deep@example.net'))).status).toBe(202);
  await herald.sink.waitFor(sent + 1);
});

it.each(['Bcc', 'bcc', 'BCC', 'Content-Type', 'sender', 'DKIM-SIGNATURE', 'Return-Path', 'to'])(
  'refuses the header %s with invalid_value, storing and sending nothing', async (name) => {
    const before = await stored();
    const response = await send({ ...minimal('hdr@example.net'), headers: { [name]: 'victim@example.org' } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Json).error.errors).toEqual({ [`headers.${name}`]: 'invalid_value' });
    expect(await stored()).toBe(before);
  });

it('sends allowed headers (X-…, List-Id, In-Reply-To) as given', async () => {
  const sent = herald.sink.received.length;
  const headers = { 'X-Order': '42', 'list-id': '<news.example.com>', 'In-Reply-To': '<a@example.com>' };
  expect((await send({ ...minimal('allowed@example.net'), headers })).status).toBe(202);
  const [mail] = (await herald.sink.waitFor(sent + 1)).slice(sent);
  expect(mail.rcptTo).toEqual(['allowed@example.net']);
  expect(mail.parsed.headers.get('x-order')).toBe('42');
  expect(mail.parsed.headers.get('in-reply-to')).toBe('<a@example.com>');
  // The client's List-Id replaces Herald's (one line, theirs).
  expect(mail.parsed.headerLines.filter((line) => line.key === 'list-id').map((line) => line.line.replace(/^list-id:\s*/i, ''))).toEqual(['<news.example.com>']);
});

it('stores only validated fields: unknown keys are dropped, the body is one JSON string', async () => {
  const body = {
    ...minimal('strip@example.net'),
    subscription: { group: 'g', disable_check: true }, // sent by the Java SDK
    attachments: [], // the Java SDK sends unset collections as []
    recipients: [{ to: { email: 'strip@example.net', extra: 'x' }, unknown: { deep: [1, 2] }, substitutions: { name: 'Ada' } }],
  };
  expect((await send(body)).status).toBe(202);
  const doc = await herald.services.store.sendRequests.findOne({ account: account.account, payload: { $regex: 'strip@example.net' } });
  expect(Object.keys(doc!).sort()).toEqual(['_id', 'acceptedAt', 'account', 'batchId', 'payload', 'source']);
  expect(typeof doc!.payload).toBe('string');
  expect(readHttpBody(doc!)).toEqual({
    ...minimal('strip@example.net'),
    recipients: [{ to: { email: 'strip@example.net' }, substitutions: { name: 'Ada' } }],
  });
});

it.each([
  ['an operator key in substitutions', { ...minimal('op@example.net'), substitutions: { $where: 'sleep(1000)' } }],
  ['a __proto__ key', JSON.stringify(minimal('proto@example.net')).replace('{', '{"__proto__":{"admin":true},')],
  ['a lone surrogate', JSON.stringify(minimal('sur@example.net')).replace('Hello', '\\ud800')],
  ['an array with too many items', { ...minimal('many@example.net'), substitutions: { list: new Array(10_001).fill(1) } }],
])('refuses %s with 400 bad_request and stores nothing', async (_label, body) => {
  const before = await stored();
  const response = await send(body);
  expect(response.status).toBe(400);
  expect(((await response.json()) as Json).error.type).toBe('bad_request');
  expect(await stored()).toBe(before);
});

it('bounds the free-form parts: substitution strings (300KB), custom_args (50 keys, values 1000)', async () => {
  const before = await stored();
  const response = await send({
    ...minimal('free@example.net'),
    substitutions: { order: { lines: [{ note: 'x'.repeat(300 * 1024 + 1) }] } },
    recipients: [{ to: { email: 'free@example.net' }, custom_args: { big: 'y'.repeat(1001) } }],
  });
  expect(response.status).toBe(400);
  expect(((await response.json()) as Json).error.errors).toEqual({
    'substitutions.order.lines[0].note': 'max_length_exceeded',
    'recipients[0].custom_args.big': 'max_length_exceeded',
  });
  const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
  const tooMany = await send({ ...minimal('free@example.net'), recipients: [{ to: { email: 'free@example.net' }, custom_args: many }] });
  expect(((await tooMany.json()) as Json).error.errors).toEqual({ 'recipients[0].custom_args': 'too_many_items' });
  expect(await stored()).toBe(before);
  const nested = { ...minimal('model@example.net'), substitutions: { order: { id: 7, paid: true, lines: [{ sku: 'a', qty: 2 }, null] } } };
  expect((await send(nested)).status).toBe(202);
});

describe('every answer is JSON in its prefix shape', () => {
  it.each(['/v1', '/v1/nothing', '/v1/mail/send/extra'])('404 under %s in the transactional shape', async (path) => {
    const response = await fetch(`${herald.baseUrl}${path}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ success: false, error: { status: 404, type: 'not_found', message: expect.any(String) } });
  });

  it.each(['/v2', '/v2/acme/nothing', '/nothing'])('404 under %s in the account envelope', async (path) => {
    const response = await fetch(`${herald.baseUrl}${path}`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      href: path, success: false, error: { status: 404, type: 'NOT_FOUND', userMessage: expect.any(String) },
    });
  });

  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('405 with Allow for %s /v1/mail/send', async (method) => {
    const response = await fetch(`${herald.baseUrl}/v1/mail/send`, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toEqual({ success: false, error: { status: 405, type: 'method_not_allowed', message: expect.stringContaining('POST') } });
  });

  it('405 in the envelope for a wrong method outside /v1', async () => {
    const response = await fetch(`${herald.baseUrl}/healthz`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('GET');
    expect(((await response.json()) as Json).error.type).toBe('METHOD_NOT_ALLOWED');
  });
});
