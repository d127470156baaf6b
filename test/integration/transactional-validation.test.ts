// Validation of POST /v1/mail/send over HTTP against the real stack, as the spec's "Transactional
// send (HTTP)" and Limits table state it: every validation code on every field it applies to, each
// limit at its boundary (202) and one past it (400 naming the field and the code), every error of
// a body at once, and a refused request changes nothing (nothing stored, sent or in the ledger).
// Formats (emails, dates, null and empty values, batch_code, the 10 MB request, 1000 recipients) are
// in transactional-validation-formats.test.ts; attachments' codes in transactional-policy.test.ts;
// header names, custom_args and substitution bounds in send-hardening.test.ts.
import type { NewAccount } from '../../core/accounts/accounts';
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

/** Every refused body sends to this address only: nothing may ever reach it. */
const REFUSED = 'refused@example.net';
const send = (json: unknown) => callHerald(herald.baseUrl, 'POST', '/v1/mail/send', { headers: { authorization: `Bearer ${acme.transactionalKey}` }, json });
const valid = (to = REFUSED): Json => ({ from: { email: 'shop@example.com' }, subject: 'Hi', content: { text: 'Hi' }, recipients: [{ to: { email: to } }] });
/** The valid body with one change; `recipient` changes its first recipient. */
const changed = (change: Json, recipient: Json = {}, to = REFUSED): Json => {
  const body = { ...valid(to), ...change };
  if (!change.recipients) body.recipients = [{ ...body.recipients[0], ...recipient }];
  return body;
};

const x = (n: number) => 'x'.repeat(n);
const addresses = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ email: `${prefix}${i}@example.net`, name: x(100) }));
const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v']));
const tags = (n: number, length = 5) => Array.from({ length: n }, (_, i) => `${i}`.padEnd(length, 't'));

let sentMessages = 0;
let accepted = 0;
/** 202, and counts the messages it sends (one per recipients element) for the final check. */
async function expectAccepted(body: Json) {
  const answer = await send(body);
  expect([answer.status, answer.body]).toEqual([202, { success: true, data: '' }]);
  accepted += 1;
  sentMessages += body.recipients.length;
  return answer;
}

async function expectRefused(body: Json, errors: Record<string, string>) {
  const answer = await send(body);
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({ success: false, error: { status: 400, type: 'validation_error', message: expect.any(String), errors } });
  return answer;
}

describe('each limit of the Limits table: at it 202, one past it 400 with the field and code', () => {
  // [limit, body at the limit (each to its own address), body one past it, field, code]
  const cases: Array<[string, (to: string) => Json, Json, string, string]> = [
    ['subject 200 characters', (to) => changed({ subject: x(200) }, {}, to), changed({ subject: x(201) }), 'subject', 'max_length_exceeded'],
    ['subject 200 characters, counted as characters (not UTF-16 units)', (to) => changed({ subject: '😀'.repeat(200) }, {}, to),
      changed({ subject: '😀'.repeat(201) }), 'subject', 'max_length_exceeded'],
    ['from.name 100', (to) => changed({ from: { email: 'shop@example.com', name: x(100) } }, {}, to),
      changed({ from: { email: 'shop@example.com', name: x(101) } }), 'from.name', 'max_length_exceeded'],
    ['reply_to.name 100', (to) => changed({ reply_to: { email: 'help@example.com', name: x(100) } }, {}, to),
      changed({ reply_to: { email: 'help@example.com', name: x(101) } }), 'reply_to.name', 'max_length_exceeded'],
    ['recipients[].to.name 100', (to) => changed({}, { to: { email: to, name: x(100) } }, to),
      changed({}, { to: { email: REFUSED, name: x(101) } }), 'recipients[0].to.name', 'max_length_exceeded'],
    ['recipients[].cc: 10, names 100', (to) => changed({}, { cc: addresses(10, `cc-${to.split('@')[0]}-`) }, to),
      changed({}, { cc: addresses(11, 'cc') }), 'recipients[0].cc', 'too_many_items'],
    ['recipients[].cc[].name 100', (to) => changed({}, { cc: [{ email: `cc-${to}`, name: x(100) }] }, to),
      changed({}, { cc: [{ email: 'cc@example.net', name: x(101) }] }), 'recipients[0].cc[0].name', 'max_length_exceeded'],
    ['recipients[].bcc: 10, names 100', (to) => changed({}, { bcc: addresses(10, `bcc-${to.split('@')[0]}-`) }, to),
      changed({}, { bcc: addresses(11, 'bcc') }), 'recipients[0].bcc', 'too_many_items'],
    ['recipients[].bcc[].name 100', (to) => changed({}, { bcc: [{ email: `bcc-${to}`, name: x(100) }] }, to),
      changed({}, { bcc: [{ email: 'bcc@example.net', name: x(101) }] }), 'recipients[0].bcc[0].name', 'max_length_exceeded'],
    ['headers: 10 entries', (to) => changed({ headers: headers(10) }, {}, to), changed({ headers: headers(11) }), 'headers', 'too_many_items'],
    ['headers: key 900 characters', (to) => changed({ headers: { [`X-${x(898)}`]: 'v' } }, {}, to),
      changed({ headers: { [`X-${x(899)}`]: 'v' } }), `headers.X-${x(899)}`, 'max_length_exceeded'],
    ['headers: value 50 characters', (to) => changed({ headers: { 'X-Order': x(50) } }, {}, to),
      changed({ headers: { 'X-Order': x(51) } }), 'headers.X-Order', 'max_length_exceeded'],
    ['tags: 10 entries of 100 characters', (to) => changed({ tags: tags(10, 100) }, {}, to), changed({ tags: tags(11) }), 'tags', 'too_many_items'],
    ['tags: 100 characters each', (to) => changed({ tags: [x(100)] }, {}, to), changed({ tags: ['ok', x(101)] }), 'tags[1]', 'max_length_exceeded'],
    ['recipients[].tags: 10 entries of 100 characters', (to) => changed({}, { tags: tags(10, 100) }, to),
      changed({}, { tags: tags(11) }), 'recipients[0].tags', 'too_many_items'],
    ['recipients[].tags: 100 characters each', (to) => changed({}, { tags: [x(100)] }, to),
      changed({}, { tags: [x(101)] }), 'recipients[0].tags[0]', 'max_length_exceeded'],
    ['batch_code 30 characters', (to) => changed({ batch_code: x(30) }, {}, to), changed({ batch_code: x(31) }), 'batch_code', 'max_length_exceeded'],
    ['content.html 300 KB', (to) => changed({ content: { html: `<p>${x(300 * 1024 - 7)}</p>` } }, {}, to),
      changed({ content: { html: `<p>${x(300 * 1024 - 6)}</p>` } }), 'content.html', 'max_length_exceeded'],
    ['content.text 300 KB', (to) => changed({ content: { text: x(300 * 1024) } }, {}, to),
      changed({ content: { text: x(300 * 1024 + 1) } }), 'content.text', 'max_length_exceeded'],
    // 2 bytes each in UTF-8: 153,601 characters are 307,202 bytes, over 300 KB though far under 300K characters.
    ['content.text 300 KB, counted in UTF-8 bytes', (to) => changed({ content: { text: 'é'.repeat(153_600) } }, {}, to),
      changed({ content: { text: 'é'.repeat(153_601) } }), 'content.text', 'max_length_exceeded'],
    ['tracking.analytics utm values 200 characters (Herald\'s bound)', (to) => changed({ tracking: { analytics: { utm_source: x(200), utm_term: x(200) } } }, {}, to),
      changed({ tracking: { analytics: { utm_campaign: x(201) } } }), 'tracking.analytics.utm_campaign', 'max_length_exceeded'],
  ];

  it.each(cases)('%s', async (label, atLimit, past, field, code) => {
    await expectAccepted(atLimit(`limit-${cases.findIndex((c) => c[0] === label)}@example.net`));
    await expectRefused(past, { [field]: code });
  });

  it('recipients: at least 1 (0 is required_at_least_one; 1000 and 1001 are in the formats file)', async () => {
    await expectRefused(changed({ recipients: [] }), { recipients: 'required_at_least_one' });
  });
});

describe('every validation code on every field it applies to', () => {
  const cases: Array<[string, Json, Record<string, string>]> = [
    // required: a field absent (or an empty string where the schema needs one character)
    ['from absent', (({ from: _, ...rest }) => rest)(valid()), { from: 'required' }],
    ['subject absent', (({ subject: _, ...rest }) => rest)(valid()), { subject: 'required' }],
    ['subject empty', changed({ subject: '' }), { subject: 'required' }],
    ['content absent', (({ content: _, ...rest }) => rest)(valid()), { content: 'required' }],
    ['recipients absent', (({ recipients: _, ...rest }) => rest)(valid()), { recipients: 'required' }],
    ['from.email absent', changed({ from: { name: 'Shop' } }), { 'from.email': 'required' }],
    ['reply_to.email absent', changed({ reply_to: { name: 'Help' } }), { 'reply_to.email': 'required' }],
    ['recipients[].to absent', changed({ recipients: [{ cc: [{ email: REFUSED }] }] }), { 'recipients[0].to': 'required' }],
    ['recipients[].to.email absent', changed({}, { to: { name: 'Ada' } }), { 'recipients[0].to.email': 'required' }],
    ['recipients[].cc[].email absent', changed({}, { cc: [{ name: 'Ada' }] }), { 'recipients[0].cc[0].email': 'required' }],
    ['recipients[].bcc[].email absent', changed({}, { bcc: [{ email: 'b@example.net' }, { name: 'Ada' }] }), { 'recipients[0].bcc[1].email': 'required' }],
    // required_at_least_one
    ['recipients empty', changed({ recipients: [] }), { recipients: 'required_at_least_one' }],
    ['content without html or text', changed({ content: {} }), { content: 'required_at_least_one' }],
    ['content with both empty', changed({ content: { html: '', text: '' } }), { content: 'required_at_least_one' }],
    // max_length_exceeded where no limit of the table applies: Herald's own bounds
    ['template_id over 100 characters', changed({ template_id: `/${'1'.repeat(100)}` }), { template_id: 'max_length_exceeded' }],
    ['an email over 320 characters', changed({ reply_to: { email: `${x(64)}@${x(252)}.com` } }), { 'reply_to.email': 'max_length_exceeded' }],
    // invalid_value: a value of the wrong type or format
    ['from not an object', changed({ from: 'shop@example.com' }), { from: 'invalid_value' }],
    ['from.email not an email', changed({ from: { email: 'shop' } }), { 'from.email': 'invalid_value' }],
    ['from.name not a string', changed({ from: { email: 'shop@example.com', name: 7 } }), { 'from.name': 'invalid_value' }],
    ['reply_to not an object', changed({ reply_to: ['help@example.com'] }), { reply_to: 'invalid_value' }],
    ['reply_to.email not an email', changed({ reply_to: { email: 'help@' } }), { 'reply_to.email': 'invalid_value' }],
    ['subject not a string', changed({ subject: 42 }), { subject: 'invalid_value' }],
    ['content not an object', changed({ content: 'Hi' }), { content: 'invalid_value' }],
    ['content.html not a string', changed({ content: { html: ['<p>'], text: 'Hi' } }), { 'content.html': 'invalid_value' }],
    ['content.text not a string', changed({ content: { html: '<p>Hi</p>', text: true } }), { 'content.text': 'invalid_value' }],
    ['content.html with a malformed substitution', changed({ content: { html: '[#if x]<p>open' } }), { 'content.html': 'invalid_value' }],
    ['template_id not a string', changed({ template_id: 12 }), { template_id: 'invalid_value' }],
    ['template_id naming no template', changed({ template_id: '/999999' }), { template_id: 'invalid_value' }],
    ['headers not an object', changed({ headers: ['X-A'] }), { headers: 'invalid_value' }],
    ['a header value not a string', changed({ headers: { 'X-Count': 3 } }), { 'headers.X-Count': 'invalid_value' }],
    ['a header value with a line break', changed({ headers: { 'X-Evil': 'a\r\nBcc: victim@example.org' } }), { 'headers.X-Evil': 'invalid_value' }],
    ['recipients not an array', changed({ recipients: { to: { email: REFUSED } } }), { recipients: 'invalid_value' }],
    ['a recipient not an object', changed({ recipients: [REFUSED] }), { 'recipients[0]': 'invalid_value' }],
    ['recipients[].to not an object', changed({}, { to: REFUSED }), { 'recipients[0].to': 'invalid_value' }],
    ['recipients[].to.email not an email', changed({}, { to: { email: 'ada at example.net' } }), { 'recipients[0].to.email': 'invalid_value' }],
    ['recipients[].cc not an array', changed({}, { cc: { email: 'cc@example.net' } }), { 'recipients[0].cc': 'invalid_value' }],
    ['recipients[].cc[].email not an email', changed({}, { cc: [{ email: 'cc@' }] }), { 'recipients[0].cc[0].email': 'invalid_value' }],
    ['recipients[].bcc[].email not an email', changed({}, { bcc: [{ email: '@example.net' }] }), { 'recipients[0].bcc[0].email': 'invalid_value' }],
    ['recipients[].substitutions not an object', changed({}, { substitutions: ['a'] }), { 'recipients[0].substitutions': 'invalid_value' }],
    ['recipients[].custom_args with a value not a string', changed({}, { custom_args: { order: 42 } }), { 'recipients[0].custom_args.order': 'invalid_value' }],
    ['recipients[].tags not an array', changed({}, { tags: 'vip' }), { 'recipients[0].tags': 'invalid_value' }],
    ['substitutions not an object', changed({ substitutions: 'x' }), { substitutions: 'invalid_value' }],
    ['tags not an array', changed({ tags: 'orders' }), { tags: 'invalid_value' }],
    ['a tag not a string', changed({ tags: ['ok', 3] }), { 'tags[1]': 'invalid_value' }],
    ['batch_code not a string', changed({ batch_code: 2026 }), { batch_code: 'invalid_value' }],
    ['launch_date not a string', changed({ launch_date: 1767225600 }), { launch_date: 'invalid_value' }],
    ['launch_date without a zone', changed({ launch_date: '2030-01-01T10:00:00' }), { launch_date: 'invalid_value' }],
    ['tracking not an object', changed({ tracking: true }), { tracking: 'invalid_value' }],
    ['tracking.open not an object', changed({ tracking: { open: false } }), { 'tracking.open': 'invalid_value' }],
    ['tracking.open.enable not a boolean', changed({ tracking: { open: { enable: 'no' } } }), { 'tracking.open.enable': 'invalid_value' }],
    ['tracking.click.enable not a boolean', changed({ tracking: { click: { enable: 0 } } }), { 'tracking.click.enable': 'invalid_value' }],
    ['tracking.analytics not an object', changed({ tracking: { analytics: 'utm' } }), { 'tracking.analytics': 'invalid_value' }],
    ['a utm parameter not a string', changed({ tracking: { analytics: { utm_source: 1 } } }), { 'tracking.analytics.utm_source': 'invalid_value' }],
  ];

  it.each(cases)('%s', async (_label, body, errors) => {
    await expectRefused(body, errors);
  });

  it('gives each field\'s reason in the message', async () => {
    const answer = await expectRefused(changed({ subject: x(201), recipients: [{ to: { email: 'nope' } }] }),
      { subject: 'max_length_exceeded', 'recipients[0].to.email': 'invalid_value' });
    expect(answer.body.error.message).toBe('Some fields have invalid values. subject: At most 200 characters; recipients[0].to.email: Invalid email address');
  });
});

it('reports every error of a body at once', async () => {
  await expectRefused({
    from: { name: x(101) },
    reply_to: { email: 'help' },
    subject: x(201),
    content: { text: x(300 * 1024 + 1) },
    headers: { 'X-A': x(51), Bcc: 'victim@example.org' },
    recipients: [
      { to: { email: 'not-an-email', name: x(101) }, cc: addresses(11, 'cc'), tags: [x(101)] },
      { cc: [{ email: 'cc@' }] },
    ],
    tags: tags(11),
    batch_code: x(31),
    launch_date: '2030-02-30T10:00:00Z',
    template_id: 7,
    tracking: { open: { enable: 'yes' } },
  }, {
    'from.email': 'required',
    'from.name': 'max_length_exceeded',
    'reply_to.email': 'invalid_value',
    subject: 'max_length_exceeded',
    'content.text': 'max_length_exceeded',
    'headers.X-A': 'max_length_exceeded',
    'headers.Bcc': 'invalid_value',
    'recipients[0].to.email': 'invalid_value',
    'recipients[0].to.name': 'max_length_exceeded',
    'recipients[0].cc': 'too_many_items',
    'recipients[0].tags[0]': 'max_length_exceeded',
    'recipients[1].to': 'required',
    'recipients[1].cc[0].email': 'invalid_value',
    tags: 'too_many_items',
    batch_code: 'max_length_exceeded',
    launch_date: 'invalid_value',
    template_id: 'invalid_value',
    'tracking.open.enable': 'invalid_value',
  });
});

// Last: every accepted request above was delivered, and no refused one stored, sent or recorded anything.
it('refused requests changed nothing: nothing stored, nothing in the ledger, no mail', async () => {
  const { store } = herald.services;
  expect(await store.sendRequests.countDocuments({ account: acme.account })).toBe(accepted);
  await herald.sink.waitFor(sentMessages);
  await new Promise((resolve) => setTimeout(resolve, 300)); // a late message to REFUSED would show now
  expect(herald.sink.received.filter((mail) => mail.rcptTo.includes(REFUSED))).toEqual([]);
  expect(await ledgerCount(store, { account: acme.account, email: REFUSED })).toBe(0);
});
