// GET /v2/{account}/batches and …/batches/{batchId}: real sends over HTTP (two requests sharing a
// batch_code, one recipient refused by the relay, one suppressed) and SMTP, and a send waiting
// for its launch_date; the figures and messages checked against what happened, the Temporal
// workflow named found in Temporal; paging; another account's batches never visible.
import nodemailer from 'nodemailer';
import type { NewAccount } from '../../core/accounts/accounts';
import { suppress } from '../../core/sending/suppressions';
import { batchEvents } from '../support/events';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Answer, type Json } from '../support/http';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;
/** Batch ids, in the order they were sent. */
const batches: Record<'orders' | 'single' | 'smtp' | 'later' | 'theirs', string> = { orders: '', single: '', smtp: '', later: '' , theirs: '' };

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const api = (path: string, account = acme): Promise<Answer> => callHerald(herald.baseUrl, 'GET', `/v2/${account.account}${path}`, { headers: bearer(account.apiKey) });

async function send(account: NewAccount, emails: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const answer = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: bearer(account.transactionalKey),
    json: { from: { email: 'shop@example.com' }, subject: 'Order ${n}', content: { text: 'Hi' }, recipients: emails.map((email) => ({ to: { email } })), ...extra },
  });
  expect(answer.status).toBe(202);
  return answer.headers.get('herald-batch-id')!;
}

beforeAll(async () => {
  herald = await startTestHerald({ rejectRecipients: ['gone@example.org'] });
  [acme, other] = await Promise.all([herald.newAccount(), herald.newAccount()]);
  await suppress(herald.services.store, acme.account, 'blocked@example.net', 'unsubscribed');
  batches.orders = await send(acme, ['a@example.net', 'gone@example.org'], { batch_code: 'orders' });
  await send(acme, ['b@example.net', 'blocked@example.net'], { batch_code: 'orders' });
  await batchEvents(herald.services.store, acme.account, batches.orders, 4);
  batches.single = await send(acme, ['c@example.net']);
  await batchEvents(herald.services.store, acme.account, batches.single, 1);
  const transport = nodemailer.createTransport({
    host: '127.0.0.1', port: herald.smtpPort, secure: false, ignoreTLS: true, auth: { user: 'apikey', pass: acme.transactionalKey },
  });
  await transport.sendMail({ from: 'app@example.com', to: ['d@example.net', 'e@example.net'], subject: 'Via SMTP', text: 'hello' });
  transport.close();
  const smtp = await waitUntil('the SMTP request', () => herald.services.store.sendRequests.findOne({ account: acme.account, source: 'smtp' }));
  batches.smtp = smtp.batchId;
  await batchEvents(herald.services.store, acme.account, batches.smtp, 2);
  batches.later = await send(acme, ['f@example.net'], { launch_date: new Date(Date.now() + 3_600_000).toISOString() });
  batches.theirs = await send(other, ['x@example.net']);
}, 90_000);
afterAll(() => herald?.stop());

const summaryOf = (list: Json[], id: string) => list.find((batch) => batch.id === id);

describe('the listing', () => {
  it('lists the batches newest first, with their figures', async () => {
    const answer = await api('/batches');
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((b: Json) => b.id)).toEqual([batches.later, batches.smtp, batches.single, batches.orders]);
    expect(answer.body.paging).toEqual({ offset: 0, limit: 20, results: 4, total: 4 });
    expect(answer.body.sort).toEqual({ sortby: 'created', sortdir: 'desc' });
    const list = answer.body.data;
    expect(summaryOf(list, batches.orders)).toEqual({
      id: batches.orders, created: expect.any(String), status: 'sent', recipients: 4, sent: 3, delivered: 2, bounced: 1, dropped: 1,
      subject: 'Order ${n}', source: 'http', requests: 2, workflowId: `sender-${acme.account}`,
    });
    expect(summaryOf(list, batches.single)).toMatchObject({ status: 'sent', recipients: 1, sent: 1, delivered: 1, bounced: 0, dropped: 0, requests: 1 });
    expect(summaryOf(list, batches.smtp)).toMatchObject({ status: 'sent', recipients: 2, sent: 2, delivered: 2, subject: 'Via SMTP', source: 'smtp' });
    const later = summaryOf(list, batches.later);
    expect(later).toMatchObject({ status: 'scheduled', recipients: 1, sent: 0, delivered: 0 });
    expect(later.workflowId).toMatch(new RegExp(`^tx-${acme.account}-`));
  });

  it('pages with offset and limit, oldest first on request, and finds by a part of the id', async () => {
    const page = await api('/batches?limit=2&offset=1&sortdir=asc');
    expect(page.body.data.map((b: Json) => b.id)).toEqual([batches.single, batches.smtp]);
    expect(page.body.paging).toEqual({ offset: 1, limit: 2, results: 2, total: 4 });
    const found = await api('/batches?q=ORDERS');
    expect(found.body.data.map((b: Json) => b.id)).toEqual([batches.orders]);
    const bad = await api('/batches?limit=5000');
    expect([bad.status, bad.body.error.type, Object.keys(bad.body.error.validationErrors)]).toEqual([400, 'VALIDATION_ERROR', ['limit']]);
  });

  it('shows another account only its own', async () => {
    const theirs = await api('/batches', other);
    expect(theirs.body.data.map((b: Json) => b.id)).toEqual([batches.theirs]);
  });
});

describe('a batch', () => {
  it('gives its messages with their outcome and events, and its workflow in Temporal', async () => {
    const answer = await api(`/batches/${batches.orders}`);
    expect(answer.status).toBe(200);
    const { data } = answer.body;
    expect(data).toMatchObject({ id: batches.orders, recipients: 4, sent: 3, messagesTotal: 4 });
    expect(data.messages.map((m: Json) => [m.to, m.status, m.events.map((e: Json) => e.type)]).sort()).toEqual([
      ['a@example.net', 'sent', ['track.mail.sent']],
      ['b@example.net', 'sent', ['track.mail.sent']],
      ['blocked@example.net', 'dropped', ['track.mail.dropped']],
      ['gone@example.org', 'bounced', ['track.mail.bounced']],
    ]);
    for (const message of data.messages) {
      expect(message.mail_id).toMatch(/^\S+$/);
      expect(Date.parse(message.events[0].time)).toBeGreaterThan(Date.now() - 120_000);
    }
    // The run that sent it, named by its ledger rows, and the Temporal UI search that finds that run.
    expect(data.temporal).toEqual({
      namespace: 'default', workflowId: `sender-${acme.account}`, runIds: [expect.any(String)],
      query: `WorkflowId = "sender-${acme.account}" AND RunId = "${data.temporal.runIds[0]}"`,
    });
    const described = await herald.services.temporal.workflow.getHandle(data.temporal.workflowId, data.temporal.runIds[0]).describe();
    expect(described.type).toBe('AccountSender');
    const found = [];
    for await (const info of herald.services.temporal.workflow.list({ query: data.temporal.query })) found.push(info);
    expect(found.map((info) => info.runId)).toEqual(data.temporal.runIds);
  });

  it('names the workflow waiting for a launch_date, with no messages yet', async () => {
    const { data } = (await api(`/batches/${batches.later}`)).body;
    expect(data).toMatchObject({ status: 'scheduled', messages: [], messagesTotal: 0 });
    expect(data.temporal.query).toBe(`HeraldBatch = "${batches.later}"`);
    const described = await herald.services.temporal.workflow.getHandle(data.temporal.workflowId).describe();
    expect(described.status.name).toBe('RUNNING');
  });

  it('is 404 for a batch the account does not have, another account\'s included', async () => {
    for (const id of [batches.theirs, `${acme.account}_transactional_nope`, 'x'.repeat(300)]) {
      const answer = await api(`/batches/${id}`);
      expect([answer.status, answer.body.success, answer.body.error.type]).toEqual([404, false, 'NOT_FOUND']);
    }
  });
});
