// Formats and whole-request limits of POST /v1/mail/send over HTTP against the real stack: email
// addresses (RFC 5322's dot-atom form), launch_date (ISO 8601 with Z or an offset), null and empty
// values as the Java SDK sends them, batch_code cleaning (seen in Herald-Batch-Id), the tracking
// field kept as given, the 10 MB request and the 1 to 1000 recipients, each at and one past its limit.
// Field codes and the Limits table's other limits: transactional-validation.test.ts.
import type { NewAccount } from '../../core/accounts/accounts';
import { readHttpBody } from '../../core/transactional/request';
import { batchEvents } from '../support/events';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';
import { ledgerCount } from '../support/ledger';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const REFUSED = 'refused@example.net';
const send = (json: unknown) => callHerald(herald.baseUrl, 'POST', '/v1/mail/send', { headers: { authorization: `Bearer ${acme.transactionalKey}` }, json });
const cancel = (batchId: string) =>
  callHerald(herald.baseUrl, 'DELETE', `/v1/mail/batches/${encodeURIComponent(batchId)}`, { headers: { authorization: `Bearer ${acme.transactionalKey}` } });
const valid = (to = REFUSED, extra: Json = {}): Json =>
  ({ from: { email: 'shop@example.com' }, subject: 'Hi', content: { text: 'Hi' }, recipients: [{ to: { email: to } }], ...extra });
const storedBody = async (batchId: string) => readHttpBody((await herald.services.store.sendRequests.findOne({ account: acme.account, batchId }))!);
const batchOf = (code: string) => `${acme.account}_transactional_${code}`;

async function expectRefused(body: Json, errors: Record<string, string>) {
  const answer = await send(body);
  expect([answer.status, answer.body?.error?.type, answer.body?.error?.errors]).toEqual([400, 'validation_error', errors]);
}

describe('email addresses (RFC 5322)', () => {
  it('accepts unusual valid addresses in every address field', async () => {
    const unusual = [
      "o'brien@example.com", 'first.last+tag@sub.example.co.uk', "#!$%&'*+-/=?^_`{}|~@example.org",
      'UPPER.Case@Example.COM', '1234567890@123.example', 'x@a-b.example', 'a.b-c_d@xn--bcher-kva.example',
    ];
    const answer = await send({
      ...valid(unusual[0]),
      from: { email: unusual[1] }, reply_to: { email: unusual[2] },
      recipients: [
        { to: { email: unusual[0] }, cc: [{ email: unusual[3] }], bcc: [{ email: unusual[4] }] },
        { to: { email: unusual[5] } }, { to: { email: unusual[6] } },
      ],
      batch_code: 'unusual',
    });
    expect(answer.status).toBe(202);
    const events = await batchEvents(herald.services.store, acme.account, batchOf('unusual'), 3);
    expect(events.map((e) => [e.email, e.track_type]).sort()).toEqual([unusual[0], unusual[5], unusual[6]].map((e) => [e, 'track.mail.sent']).sort());
  });

  it.each([
    'plainaddress', '@example.com', 'ada@', 'ada@@example.com', 'ada lovelace@example.com', '.ada@example.com', 'ada.@example.com',
    'ada..lovelace@example.com', 'ada@example..com', 'ada@-example.com', 'ada@example-.com', 'ada@example.com.', 'Ada <ada@example.com>',
    'ada@example.com\r\nBcc: victim@example.org', 'ada@exa mple.com', 'ada@example,com',
    // Valid in RFC 5322 but refused by Herald (documented): quoted local parts, domain literals, a domain without a dot.
    '"ada lovelace"@example.com', 'ada@[192.0.2.1]', 'ada@localhost',
  ])('refuses %j with invalid_value', async (email) => {
    await expectRefused({ ...valid(), recipients: [{ to: { email: REFUSED }, cc: [{ email }] }] }, { 'recipients[0].cc[0].email': 'invalid_value' });
  });
});

describe('launch_date (ISO 8601 with Z or an offset)', () => {
  it.each([
    ['Z', '2020-01-01T09:00:00Z', 'datez'],
    ['+hh:mm', '2020-01-01T10:00:00+01:00', 'datecolon'],
    ['+hhmm', '2020-01-01T10:00:00+0100', 'datenocolon'],
    ['-hh:mm with a half hour', '2020-01-01T05:30:00-03:30', 'datehalf'],
    ['fractions of a second', '2020-01-01T09:00:00.000Z', 'datefraction'],
    ['no seconds', '2020-01-01T09:00Z', 'datenoseconds'],
  ])('accepts %s, stored as that instant', async (_label, date, code) => {
    expect((await send(valid('dated@example.net', { launch_date: date, batch_code: code }))).status).toBe(202);
    const doc = await herald.services.store.sendRequests.findOne({ account: acme.account, batchId: batchOf(code) });
    expect(doc!.launchAt!.toISOString()).toBe('2020-01-01T09:00:00.000Z');
    await batchEvents(herald.services.store, acme.account, batchOf(code), 1); // a past date sends at once
  });

  it.each([
    ['no zone', '2030-01-01T10:00:00'], ['a date only', '2030-01-01'], ['a space for T', '2030-01-01 10:00:00Z'],
    ['an offset of one digit', '2030-01-01T10:00:00+1'], ['a lower-case z', '2030-01-01T10:00:00z'], ['words', 'tomorrow'],
    ['February 30th', '2030-02-30T10:00:00Z'], ['February 29th of a common year', '2027-02-29T10:00:00Z'], ['hour 25', '2030-01-01T25:00:00Z'],
    ['minute 60', '2030-01-01T10:60:00Z'], ['month 13', '2030-13-01T10:00:00Z'], ['an empty string', ''],
  ])('refuses %s with invalid_value', async (_label, date) => {
    await expectRefused(valid(REFUSED, { launch_date: date }), { launch_date: 'invalid_value' });
  });
});

describe('null and empty values mean absent, as the Java SDK sends unset fields', () => {
  it('accepts a body with every optional field null or empty, and stores only what is set', async () => {
    const answer = await send({
      from: { email: 'shop@example.com', name: null },
      reply_to: null, subject: 'Hi', template_id: null, batch_code: null, launch_date: null, tracking: null, subscription: null,
      content: { html: null, text: 'Hi' },
      attachments: [], headers: {}, substitutions: {}, tags: [],
      recipients: [{ to: { email: 'sdk@example.net', name: null }, cc: [], bcc: [], substitutions: {}, custom_args: {}, tags: [] }],
    });
    expect(answer.status).toBe(202);
    expect(await storedBody(answer.headers.get('herald-batch-id')!)).toEqual(valid('sdk@example.net'));
    await batchEvents(herald.services.store, acme.account, answer.headers.get('herald-batch-id')!, 1);
  });

  it('treats tracking {} and its empty parts as absent', async () => {
    const answer = await send(valid('tracking-empty@example.net', { tracking: { open: {}, click: null, analytics: {} } }));
    expect(answer.status).toBe(202);
    expect(await storedBody(answer.headers.get('herald-batch-id')!)).toEqual(valid('tracking-empty@example.net'));
  });

  it('keeps the tracking field as given', async () => {
    const tracking = { open: { enable: false }, click: { enable: true }, analytics: { utm_source: 'herald', utm_medium: 'email', utm_campaign: 'spring', utm_content: '', utm_term: 'tea' } };
    const answer = await send(valid('tracking@example.net', { tracking: { ...tracking, ganalytics: { enable: true } } }));
    expect(answer.status).toBe(202);
    expect((await storedBody(answer.headers.get('herald-batch-id')!)).tracking).toEqual(tracking);
  });

  it('reports the required fields of an empty object, and still requires content to have html or text', async () => {
    await expectRefused({}, { from: 'required', subject: 'required', content: 'required', recipients: 'required' });
    await expectRefused(valid(REFUSED, { content: { html: null, text: null } }), { content: 'required_at_least_one' });
  });
});

describe('batch_code: at most 30 characters, lower-cased, then only a-z and 0-9 kept', () => {
  it.each([
    ['Spring-Sale_2026 (Été)!', 'springsale2026t'],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZ0123', 'abcdefghijklmnopqrstuvwxyz0123'],
    ['order #42 / ünïcödé', 'order42ncd'],
  ])('%j gives the batch id …_transactional_%s', async (code, cleaned) => {
    const answer = await send(valid('batch@example.net', { batch_code: code }));
    expect([answer.status, answer.headers.get('herald-batch-id')]).toEqual([202, batchOf(cleaned)]);
    expect((await storedBody(batchOf(cleaned))).batch_code).toBe(cleaned);
  });

  it('falls back to the request id when nothing is left after cleaning', async () => {
    const answer = await send(valid('batch-empty@example.net', { batch_code: '--- !!! ---' }));
    expect(answer.status).toBe(202);
    const doc = await herald.services.store.sendRequests.findOne({ account: acme.account, batchId: answer.headers.get('herald-batch-id')! });
    expect(answer.headers.get('herald-batch-id')).toBe(batchOf(doc!._id));
  });

  it('counts the 30 characters before cleaning', async () => {
    await expectRefused(valid(REFUSED, { batch_code: `${'-'.repeat(29)}ab` }), { batch_code: 'max_length_exceeded' });
  });
});

describe('the whole request: at most 10 MB', () => {
  const LIMIT = 10 * 1024 * 1024;
  /** A valid body of exactly `bytes` bytes of JSON, its size in substitution strings (each at most 300 KB). */
  function bodyOfBytes(bytes: number, to: string): Json {
    const substitutions: Record<string, string> = {};
    const body = valid(to, { substitutions });
    for (let i = 0; ; i++) {
      substitutions[`s${i}`] = '';
      const left = bytes - Buffer.byteLength(JSON.stringify(body));
      substitutions[`s${i}`] = 'x'.repeat(Math.min(left, 300 * 1024));
      if (left <= 300 * 1024) break;
    }
    expect(Buffer.byteLength(JSON.stringify(body))).toBe(bytes);
    return body;
  }

  it('accepts a body of exactly 10 MB', async () => {
    const answer = await send(bodyOfBytes(LIMIT, 'tenmb@example.net'));
    expect(answer.status).toBe(202);
    await batchEvents(herald.services.store, acme.account, answer.headers.get('herald-batch-id')!, 1);
  });

  it('refuses one byte more with 413 payload_too_large, storing nothing', async () => {
    const before = await herald.services.store.sendRequests.countDocuments({ account: acme.account });
    const answer = await send(bodyOfBytes(LIMIT + 1, REFUSED));
    expect(answer.status).toBe(413);
    expect(answer.body.error).toEqual({ status: 413, type: 'payload_too_large', message: expect.stringContaining('10MB') });
    expect(await herald.services.store.sendRequests.countDocuments({ account: acme.account })).toBe(before);
  });
});

describe('recipients: 1 to 1000', () => {
  const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ to: { email: `${prefix}${i}@example.net` } }));

  it('accepts 1000 recipients (held by a launch_date, then cancelled: all 1000 recorded as dropped)', async () => {
    const inADay = new Date(Date.now() + 86_400_000).toISOString();
    const answer = await send(valid(REFUSED, { recipients: many(1000, 'many'), launch_date: inADay, batch_code: 'thousand' }));
    expect([answer.status, answer.headers.get('herald-batch-id')]).toEqual([202, batchOf('thousand')]);
    expect((await storedBody(batchOf('thousand'))).recipients).toHaveLength(1000);
    expect((await cancel(batchOf('thousand'))).body).toEqual({ success: true, data: { batch_id: batchOf('thousand'), requests: 1 } });
    const events = await batchEvents(herald.services.store, acme.account, batchOf('thousand'), 1000);
    expect(new Set(events.map((e) => e.track_type))).toEqual(new Set(['track.mail.dropped']));
  });

  it('refuses to cancel a batch id past 200 characters (max_length_exceeded), and answers 0 requests for an unknown one', async () => {
    const tooLong = await cancel('x'.repeat(201));
    expect([tooLong.status, tooLong.body?.error?.type, tooLong.body?.error?.errors]).toEqual([400, 'validation_error', { batch_id: 'max_length_exceeded' }]);
    expect((await cancel(batchOf('nosuchbatch'))).body).toEqual({ success: true, data: { batch_id: batchOf('nosuchbatch'), requests: 0 } });
  });

  it('refuses 1001 with too_many_items', async () => {
    await expectRefused(valid(REFUSED, { recipients: many(1001, 'refused') }), { recipients: 'too_many_items' });
  });
});

// Last: refused requests sent nothing and left no ledger row; the 1000 cancelled ones were never sent.
it('refused requests changed nothing: no mail, no ledger row', async () => {
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(herald.sink.received.filter((mail) => mail.rcptTo.some((to) => to === REFUSED || /^(refused|many)\d+@/.test(to)))).toEqual([]);
  expect(await ledgerCount(herald.services.store, { account: acme.account, email: REFUSED })).toBe(0);
  expect(await herald.services.store.sendRequests.countDocuments({ account: acme.account, payload: { $regex: 'refused' } })).toBe(0);
});
