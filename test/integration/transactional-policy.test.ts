// The account's sending policy on POST /v1/mail/send (sender domains, attachments, monthly
// limit), against the real API, store, Temporal and an SMTP sink.
import nodemailer from 'nodemailer';
import type { NewAccount } from '../../core/accounts/accounts';
import { updateAccountSettings, type AccountSettings } from '../../core/accounts/settings';
import { monthlyCounterId, monthOf } from '../../core/transactional/monthly-usage';
import { readHttpBody } from '../../core/transactional/request';
import { freePort } from '../../infra/ports';
import { composeTestHerald, listenLocally, startTestHerald, type TestHerald } from '../support/herald';

let herald: TestHerald;

beforeAll(async () => {
  herald = await startTestHerald();
});
afterAll(() => herald?.stop());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = any;

async function accountWith(settings: Partial<AccountSettings>): Promise<NewAccount> {
  const account = await herald.newAccount();
  await updateAccountSettings(herald.services.store, account.account, settings);
  return account;
}

function send(account: NewAccount, body: unknown, baseUrl = herald.baseUrl) {
  return fetch(`${baseUrl}/v1/mail/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${account.transactionalKey}` },
    body: JSON.stringify(body),
  });
}

const message = (from: string, ...to: string[]) => ({
  from: { email: from },
  subject: 'Your invoice',
  content: { text: 'Attached.' },
  recipients: to.map((email) => ({ to: { email } })),
});

const stored = (account: NewAccount) => herald.services.store.sendRequests.countDocuments({ account: account.account });
const monthlyCount = async (account: NewAccount) =>
  (await herald.services.store.counters.findOne({ _id: monthlyCounterId(account.account, monthOf(new Date())) }))?.seq ?? 0;

/** The sink's mails to these addresses, once each has arrived (other tests' mails arrive meanwhile). */
async function mailsTo(...emails: string[]) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const mails = emails.map((email) => herald.sink.received.find((m) => m.rcptTo.includes(email)));
    if (mails.every(Boolean)) return mails.map((m) => m!);
    if (Date.now() > deadline) throw new Error(`no mail to ${emails.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const CSV = Buffer.from('email,name\nada@example.net,Ada Lovelace – Köln\n');
const file = (fileName: string, mimeType: string, bytes: Buffer) => ({ file_name: fileName, mime_type: mimeType, data: bytes.toString('base64') });

describe('sender domains', () => {
  it('lets an account without sender domains send from any address', async () => {
    const account = await accountWith({});
    expect((await send(account, message('anyone@anywhere.example', 'a@example.net'))).status).toBe(202);
  });

  it('accepts a From of a listed domain, in any letter case', async () => {
    const account = await accountWith({ senderDomains: ['shop.example', 'news.example'] });
    expect((await send(account, message('Billing@Shop.EXAMPLE', 'b@example.net'))).status).toBe(202);
    expect((await send(account, message('hello@news.example', 'b@example.net'))).status).toBe(202);
  });

  it.each([
    ['another domain', 'billing@evil.example'],
    ['a subdomain of a listed one', 'billing@mail.shop.example'],
    ['a domain ending like a listed one', 'billing@myshop.example'],
  ])('refuses %s with 403 forbidden, storing and counting nothing', async (_label, from) => {
    const account = await accountWith({ senderDomains: ['shop.example'], monthlyLimit: 10 });
    const response = await send(account, message(from, 'c@example.net'));
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      success: false, error: { status: 403, type: 'forbidden', message: expect.stringContaining('origin address not allowed') },
    });
    expect(await stored(account)).toBe(0);
    expect(await monthlyCount(account)).toBe(0);
  });
});

describe('attachments', () => {
  it('are refused with 403 forbidden when the account has not enabled them; [] and null still mean none', async () => {
    const account = await accountWith({});
    const response = await send(account, { ...message('a@shop.example', 'd@example.net'), attachments: [file('invoice.pdf', 'application/pdf', PDF)] });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ success: false, error: { status: 403, type: 'forbidden', message:
      `attachments are not enabled for this account; an operator enables them with npx herald account set ${account.account} --attachments on` } });
    expect(await stored(account)).toBe(0);
    expect((await send(account, { ...message('a@shop.example', 'd@example.net'), attachments: [] })).status).toBe(202);
    expect((await send(account, { ...message('a@shop.example', 'd@example.net'), attachments: null })).status).toBe(202);
  });

  it('are sent with every message of the request, with their names, bytes and formats\' types; stored as given', async () => {
    const account = await accountWith({ attachments: true });
    const attachments = [
      file('Invoice 2026-11.pdf', 'application/pdf', PDF),
      file('pixel.PNG', 'image/png', PNG),
      file('contacts.csv', 'text/csv; charset=utf-8', CSV),
    ];
    const response = await send(account, { ...message('a@shop.example', 'att1@example.net', 'att2@example.net'), attachments });
    expect(response.status).toBe(202);

    const mails = await mailsTo('att1@example.net', 'att2@example.net');
    for (const mail of mails) {
      expect(mail.parsed.text?.trim()).toBe('Attached.');
      expect(mail.parsed.attachments.map((a) => [a.filename, a.contentType, a.content.toString('base64')])).toEqual([
        ['Invoice 2026-11.pdf', 'application/pdf', PDF.toString('base64')],
        ['pixel.PNG', 'image/png', PNG.toString('base64')],
        ['contacts.csv', 'text/csv', CSV.toString('base64')],
      ]);
    }
    const doc = await herald.services.store.sendRequests.findOne({ account: account.account });
    expect(typeof doc!.payload).toBe('string');
    expect(readHttpBody(doc!).attachments).toEqual(attachments);
  });

  it('sends a file of several MB (within the 10 MB request) intact', async () => {
    const account = await accountWith({ attachments: true });
    const big = Buffer.concat([PDF, Buffer.alloc(6 * 1024 * 1024, 'x'), Buffer.from('\n%%EOF\n')]); // ~8 MB as base64
    const response = await send(account, { ...message('a@shop.example', 'big@example.net'), attachments: [file('big.pdf', 'application/pdf', big)] });
    expect(response.status).toBe(202);
    const [mail] = await mailsTo('big@example.net');
    expect(mail.parsed.attachments).toHaveLength(1);
    expect(mail.parsed.attachments[0].content.equals(big)).toBe(true);
  });

  it('never lets a file name reach the headers with CR/LF (400, nothing sent)', async () => {
    const account = await accountWith({ attachments: true });
    const response = await send(account, { ...message('a@shop.example', 'e@example.net'),
      attachments: [file('a.pdf"\r\nBcc: victim@example.org\r\nX: .pdf', 'application/pdf', PDF)] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Json).error.errors).toEqual({ 'attachments[0].file_name': 'invalid_value' });
    expect(await stored(account)).toBe(0);
  });

  it('reports every problem of the body at once, each on its field, before the account\'s policy', async () => {
    // Attachments are off for this account: validation answers first (400, not 403).
    const account = await accountWith({});
    const response = await send(account, {
      ...message('a@shop.example', 'f@example.net'),
      subject: '',
      attachments: [
        file('ok.pdf', 'application/pdf', PDF),
        { file_name: 'invoice.pdf', mime_type: 'application/pdf', data: 'JVBERi0xLjQK!!not base64' },
        file('pixel.png', 'image/png', PDF),
        file('setup.exe', 'application/octet-stream', PDF),
        file('notes.txt', 'image/png', Buffer.from('hello\n')),
        { file_name: 'missing.pdf', mime_type: 'application/pdf' },
        { file_name: 'x'.repeat(300) + '.pdf', mime_type: 'application/pdf', data: PDF.toString('base64') },
      ],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      success: false,
      error: {
        status: 400, type: 'validation_error', message: expect.any(String),
        errors: {
          subject: 'required',
          'attachments[1].data': 'invalid_value',
          'attachments[2].data': 'invalid_value',
          'attachments[3].file_name': 'invalid_value',
          'attachments[4].mime_type': 'invalid_value',
          'attachments[5].data': 'required',
          'attachments[6].file_name': 'max_length_exceeded',
        },
      },
    });
    expect(await stored(account)).toBe(0);
  });

  it('allows at most 10 attachments', async () => {
    const account = await accountWith({ attachments: true });
    const response = await send(account, { ...message('a@shop.example', 'g@example.net'), attachments: Array(11).fill(file('a.pdf', 'application/pdf', PDF)) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Json).error.errors).toEqual({ attachments: 'too_many_items' });
  });
});

describe('monthly limit', () => {
  it('counts messages (recipients) and refuses with 503 naming the MONTHLY limit what would exceed it', async () => {
    const account = await accountWith({ monthlyLimit: 3 });
    expect((await send(account, message('a@shop.example', 'm1@example.net', 'm2@example.net'))).status).toBe(202);
    const over = await send(account, message('a@shop.example', 'm3@example.net', 'm4@example.net'));
    expect(over.status).toBe(503);
    expect(await over.json()).toEqual({
      success: false, error: { status: 503, type: 'service_unavailable', message: expect.stringContaining('MONTHLY limit of 3 messages reached') },
    });
    expect(await monthlyCount(account)).toBe(2); // the refused request counted nothing
    expect((await send(account, message('a@shop.example', 'm3@example.net'))).status).toBe(202);
    expect((await send(account, message('a@shop.example', 'm4@example.net'))).status).toBe(503);
    expect(await stored(account)).toBe(2);
    expect(await monthlyCount(account)).toBe(3);
  });

  it('applies the account\'s policy first: a forbidden sender is 403 even over the limit', async () => {
    const account = await accountWith({ monthlyLimit: 0, senderDomains: ['shop.example'] });
    expect((await send(account, message('a@other.example', 'n@example.net'))).status).toBe(403);
    expect((await send(account, message('a@shop.example', 'n@example.net'))).status).toBe(503);
  });

  it('never overshoots under simultaneous requests (one atomic count in the store)', async () => {
    const account = await accountWith({ monthlyLimit: 5 });
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => send(account, message('a@shop.example', `c${i}@example.net`)).then((r) => r.status)));
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 503)).toHaveLength(7);
    expect(await monthlyCount(account)).toBe(5);
    expect(await stored(account)).toBe(5);
  });

  it('counts SMTP submissions too (451 over the limit)', async () => {
    const account = await accountWith({ monthlyLimit: 2 });
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: herald.smtpPort, secure: false, ignoreTLS: true, auth: { user: 'apikey', pass: account.transactionalKey } });
    try {
      await smtp.sendMail({ from: 'a@shop.example', to: ['s1@example.net', 's2@example.net'], subject: 's', text: 't' });
      expect(await monthlyCount(account)).toBe(2);
      await expect(smtp.sendMail({ from: 'a@shop.example', to: 's3@example.net', subject: 's', text: 't' })).rejects.toMatchObject({ responseCode: 451 });
      expect((await send(account, message('a@shop.example', 's4@example.net'))).status).toBe(503);
    } finally {
      smtp.close();
    }
  });

  it('gives the count back when the request cannot be started (Temporal down: 503, nothing kept)', async () => {
    const account = await accountWith({ monthlyLimit: 2 });
    // A second API on the same store whose Temporal does not answer.
    const downHerald = composeTestHerald({
      HERALD_MONGODB_DATABASE: herald.services.store.db.databaseName, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, HERALD_TASK_QUEUE: 'unused',
    }, { lazyTemporal: true });
    const down = await downHerald.apiServer();
    try {
      const response = await send(account, message('a@shop.example', 'd1@example.net', 'd2@example.net'), await listenLocally(down));
      expect(response.status).toBe(503);
      expect(((await response.json()) as Json).error.message).not.toContain('MONTHLY');
    } finally {
      // Not downHerald.close(): its Temporal connection stays open, or the SDK's pending retry timers throw on a shut channel.
      await new Promise((resolve) => down.close(resolve));
      await (await downHerald.store()).close();
    }
    expect(await monthlyCount(account)).toBe(0);
    expect(await stored(account)).toBe(0);
    // The quota is whole again: both messages fit through the working API.
    expect((await send(account, message('a@shop.example', 'd1@example.net', 'd2@example.net'))).status).toBe(202);
    expect(await monthlyCount(account)).toBe(2);
  });
});
