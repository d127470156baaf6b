import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { waitUntil } from '../support/wait';
import { ledgerRowOf } from '../support/ledger';

let herald: TestHerald;
let account: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald({ rejectRecipients: ['nobody@example.org'] });
  account = await herald.newAccount();
});
afterAll(() => herald?.stop());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = any;

function send(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${herald.baseUrl}/v1/mail/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${account.transactionalKey}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const minimal = (to: string) => ({
  from: { email: 'shop@example.com', name: 'The Shop' },
  subject: 'Your order',
  content: { html: '<html><body><p>Thanks!</p></body></html>', text: 'Thanks!' },
  recipients: [{ to: { email: to, name: 'Ada' } }],
});

describe('POST /v1/mail/send', () => {
  it('accepts a minimal send with 202, delivers it through the relay and records sent', async () => {
    const before = herald.sink.received.length;
    const response = await send(minimal('ada@example.net'));
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ success: true, data: '' });
    const batch = response.headers.get('herald-batch-id');

    const [mail] = (await herald.sink.waitFor(before + 1)).slice(before);
    expect(mail.rcptTo).toEqual(['ada@example.net']);
    expect(mail.parsed.subject).toBe('Your order');
    expect(mail.parsed.from?.value[0]).toEqual({ address: 'shop@example.com', name: 'The Shop' });
    expect(mail.parsed.html).toContain('<p>Thanks!</p>');
    expect(mail.parsed.text?.trim()).toBe('Thanks!');

    const { store } = herald.services;
    const request = await store.sendRequests.findOne({ account: account.account });
    expect(request).not.toBeNull();
    expect(batch).toBe(`${account.account}_transactional_${request!._id}`);
    const ledger = await waitUntil('ledger row', () => ledgerRowOf(store, { account: account.account, requestId: request!._id }));
    expect(ledger.status).toBe('sent');
    expect(mail.parsed.messageId).toBe(ledger.messageId);

    const event = await waitUntil('sent event', () => store.events.findOne({ account: account.account, mail_id: ledger._id }));
    // The event is the ledger row: one record, marked _outcome_of, the ledger's fields under _ledger (never served).
    const { _id, _outcome_of, _ledger, ...fields } = event;
    expect(_outcome_of).toBe(ledger._id);
    expect(_id).toBeDefined();
    expect(_ledger).toMatchObject({ status: 'sent', messageId: ledger.messageId });
    expect(fields).toEqual({
      account: account.account,
      track_id: expect.stringMatching(/^event_/),
      track_type: 'track.mail.sent',
      timestamp: expect.stringMatching(/Z$/),
      sent_timestamp: expect.stringMatching(/Z$/),
      hour_of_day: expect.any(Number),
      day_of_week: expect.any(Number),
      batch_id: `${account.account}_transactional_${request!._id}`,
      mail_id: ledger._id,
      mail_type: 'transactional',
      email: 'ada@example.net',
      domain: 'example.net',
      tags: [],
      custom_args: {},
      mta: 'herald.test',
    });
    expect(event.day_of_week).toBeGreaterThanOrEqual(1);
    expect(event.day_of_week).toBeLessThanOrEqual(7);

    // Operators find the send in the Temporal UI: the run of the account's AccountSender that its ledger row names.
    expect(ledger.sentBy?.workflowId).toBe(`sender-${account.account}`);
    const description = await herald.services.temporal.workflow.getHandle(ledger.sentBy!.workflowId, ledger.sentBy!.runId).describe();
    expect(description.type).toBe('AccountSender');
  });

  it('sends one copy per recipient with its cc and bcc, and carries tags, custom_args and batch_code', async () => {
    const before = herald.sink.received.length;
    const body = {
      ...minimal('one@example.net'),
      recipients: [
        { to: { email: 'one@example.net' }, cc: [{ email: 'cc1@example.net' }], bcc: [{ email: 'bcc1@example.net' }], custom_args: { order: '42' } },
        { to: { email: 'two@example.net' }, tags: ['vip'] },
      ],
      tags: ['orders'],
      batch_code: 'Spring-2026!',
      reply_to: { email: 'help@example.com' },
      headers: { 'X-Order': '42' },
    };
    const accepted = await send(body);
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('herald-batch-id')).toBe(`${account.account}_transactional_spring2026`);
    const mails = (await herald.sink.waitFor(before + 2)).slice(before);
    const first = mails.find((m) => m.rcptTo.includes('one@example.net'))!;
    expect(first.rcptTo.sort()).toEqual(['bcc1@example.net', 'cc1@example.net', 'one@example.net']);
    expect(first.parsed.replyTo?.value[0].address).toBe('help@example.com');
    expect(first.parsed.headers.get('x-order')).toBe('42');
    expect(mails.find((m) => m.rcptTo.includes('two@example.net'))!.rcptTo).toEqual(['two@example.net']);

    const { store } = herald.services;
    const events = await waitUntil('two sent events', async () => {
      const found = await store.events.find({ account: account.account, batch_id: `${account.account}_transactional_spring2026` }).toArray();
      return found.length === 2 ? found : undefined;
    });
    const byEmail = Object.fromEntries(events.map((e) => [e.email, e]));
    expect(byEmail['one@example.net'].custom_args).toEqual({ order: '42' });
    expect(byEmail['one@example.net'].tags).toEqual(['orders']);
    expect(byEmail['two@example.net'].tags).toEqual(['orders', 'vip']);
    expect(byEmail['one@example.net'].mail_id).not.toBe(byEmail['two@example.net'].mail_id);
  });

  it('records a hard bounce when the relay refuses a recipient permanently', async () => {
    expect((await send(minimal('nobody@example.org'))).status).toBe(202);
    const event = await waitUntil('bounce event', () =>
      herald.services.store.events.findOne({ account: account.account, email: 'nobody@example.org' }));
    expect(event.track_type).toBe('track.mail.bounced');
    expect(event.bounce_type).toBe('hard');
    expect(String(event.message)).toContain('550');
  });

  it('never lets CR/LF in the subject or names add a header or a recipient', async () => {
    const before = herald.sink.received.length;
    const body = {
      ...minimal('safe@example.net'),
      subject: 'Hi\r\nBcc: victim@example.org',
      from: { email: 'shop@example.com', name: 'Shop\r\nX-Injected: yes' },
    };
    expect((await send(body)).status).toBe(202);
    const [mail] = (await herald.sink.waitFor(before + 1)).slice(before);
    expect(mail.rcptTo).toEqual(['safe@example.net']);
    expect(mail.parsed.headers.has('bcc')).toBe(false);
    expect(mail.parsed.headers.has('x-injected')).toBe(false);
    expect(mail.parsed.subject).toContain('victim@example.org'); // kept as text of the subject, on one line
  });

  it('accepts the key with a lowercase scheme and without a scheme, as existing clients send it', async () => {
    expect((await send(minimal('a@example.net'), { authorization: `bearer ${account.transactionalKey}` })).status).toBe(202);
    expect((await send(minimal('b@example.net'), { authorization: account.transactionalKey })).status).toBe(202);
  });
});

describe('authentication', () => {
  it.each([
    ['no header', {}],
    ['an unknown key', { authorization: `Bearer ${account?.account ?? 'x'}-tr-doesnotexist000000000000000000` }],
  ])('answers 401 unauthorized for %s and stores nothing', async (_label, headers) => {
    const before = await herald.services.store.sendRequests.countDocuments();
    const response = await fetch(`${herald.baseUrl}/v1/mail/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(minimal('x@example.net')),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ success: false, error: { status: 401, type: 'unauthorized', message: expect.any(String) } });
    expect(await herald.services.store.sendRequests.countDocuments()).toBe(before);
  });

  it('refuses an account API key: only transactional keys send', async () => {
    const response = await send(minimal('x@example.net'), { authorization: `Bearer ${account.apiKey}` });
    expect(response.status).toBe(401);
  });
});

// Validation (every code, every limit, null and empty values, the 10 MB request) is in
// transactional-validation.test.ts and transactional-validation-formats.test.ts.
describe('bad input', () => {
  it('answers bad_request for malformed JSON and for another content type', async () => {
    const malformed = await send('{"from":');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Json).error.type).toBe('bad_request');
    const form = await send('a=1', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(400);
    expect(((await form.json()) as Json).error).toEqual({ status: 400, type: 'bad_request', message: 'Content-Type must be application/json' });
  });
});
