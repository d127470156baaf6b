// Substitutions in a send, end to end: each recipient's copy rendered from the batch and
// recipient models (the recipient's objects win), values escaped in HTML and kept on one line in
// the subject and headers, and a malformed template refused at accept time.
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const send = (json: Json) => callHerald(herald.baseUrl, 'POST', '/v1/mail/send', { headers: { authorization: `Bearer ${acme.transactionalKey}` }, json });

it('renders each recipient\'s copy from the batch and recipient substitutions', async () => {
  const before = herald.sink.received.length;
  const answer = await send({
    from: { email: 'shop@example.com' },
    subject: 'Hello ${user.first_name!"friend"}, from ${shop.name}${user.line!}',
    content: {
      html: '<p>Dear ${user.first_name!"friend"}</p><p>${user.note}</p>[#if order.total > 100]<p>Free shipping</p>[/#if][#list order.items as item]<li>${item?upper_case}</li>[/#list]',
      text: 'Order ${order.id}: ${order.total?string("0.00")} for ${user.note}',
    },
    headers: { 'X-Order': '${order.id}', 'X-Line': '${user.line!"none"}' },
    substitutions: { shop: { name: 'The Shop' }, order: { id: 'B-1', total: 10, items: [] } },
    recipients: [
      { to: { email: 'ada@example.net' }, substitutions: { user: { first_name: 'Ada', note: '<b>vip</b>', line: ' one\r\nBcc: two' }, order: { id: 'A-7', total: 150.5, items: ['tea', 'cake'] } } },
      { to: { email: 'bob@example.net' } },
    ],
  });
  expect(answer.status).toBe(202);
  const mails = (await herald.sink.waitFor(before + 2)).slice(before);
  const ada = mails.find((m) => m.rcptTo.includes('ada@example.net'))!;
  const bob = mails.find((m) => m.rcptTo.includes('bob@example.net'))!;
  // Line breaks of a value never reach a header: they become spaces.
  expect(ada.parsed.subject).toBe('Hello Ada, from The Shop one Bcc: two');
  expect(ada.parsed.headers.get('x-line')).toBe('one Bcc: two');
  expect(ada.parsed.bcc).toBeUndefined();
  expect(ada.parsed.html).toContain('<p>Dear Ada</p><p>&lt;b&gt;vip&lt;/b&gt;</p><p>Free shipping</p><li>TEA</li><li>CAKE</li>');
  expect(ada.parsed.text?.trim()).toBe('Order A-7: 150.50 for <b>vip</b>');
  expect(ada.parsed.headers.get('x-order')).toBe('A-7');
  expect(bob.parsed.subject).toBe('Hello friend, from The Shop');
  expect(bob.parsed.html).toContain('<p>Dear friend</p><p></p>');
  expect(bob.parsed.html).not.toContain('Free shipping');
  expect(bob.parsed.headers.get('x-order')).toBe('B-1');
  expect(bob.parsed.headers.get('x-line')).toBe('none');
});

it('refuses a malformed template with validation_error naming the field, line and column', async () => {
  const answer = await send({
    from: { email: 'shop@example.com' }, subject: 'Hi ${user.name', content: { html: '<p>\n[#if x]open</p>' }, recipients: [{ to: { email: 'x@example.net' } }],
  });
  expect(answer.status).toBe(400);
  expect(answer.body.error.type).toBe('validation_error');
  expect(Object.keys(answer.body.error.errors).sort()).toEqual(['content.html', 'subject']);
  expect(await herald.services.store.sendRequests.countDocuments({ account: acme.account, payload: { $regex: 'x@example.net' } })).toBe(0);
});

it('reports a malformed template beside the body\'s other errors, all at once', async () => {
  const answer = await send({
    from: { email: 'not an address' }, subject: 'Hi', content: { text: '[#list items]' }, recipients: [{ to: { email: 'y@example.net' } }],
  });
  expect(answer.status).toBe(400);
  expect(answer.body.error.errors).toEqual({ 'from.email': expect.any(String), 'content.text': 'invalid_value' });
  // The codes are the spec's; the reasons, with the template's line and column, are in the message.
  expect(answer.body.error.message).toMatch(/content\.text: Line 1, column \d+/);
});
