// SMTP submissions from three real clients (nodemailer, Python's smtplib, swaks), checked in what
// reaches the relay: one copy per envelope recipient with its own Message-ID (the ledger's),
// tracked (pixel, rewritten links), nothing substituted, the client's headers kept as written,
// attachments and 8-bit UTF-8 bodies intact; suppressed recipients dropped; Idempotency-Key.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import { updateAccountSettings } from '../../core/accounts/settings';
import type { NewAccount } from '../../core/accounts/accounts';
import { suppress } from '../../core/sending/suppressions';
import { readSmtpSubmission } from '../../core/transactional/request';
import type { ReceivedMail } from '../support/smtp-sink';
import { startTestHerald, type TestHerald } from '../support/herald';
import { ledgerRows } from '../support/ledger';

const run = promisify(execFile);
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let herald: TestHerald;
let account: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  account = await herald.newAccount();
  await updateAccountSettings(herald.services.store, account.account, { attachments: true });
});
afterAll(() => herald?.stop());

const transport = () => nodemailer.createTransport({
  host: '127.0.0.1', port: herald.smtpPort, secure: false, ignoreTLS: true, auth: { user: 'apikey', pass: account.transactionalKey },
});

/** The mails the sink received for these envelope recipients, one each (waits for them). */
async function mailsFor(...recipients: string[]): Promise<Map<string, ReceivedMail>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const mails = herald.sink.received.filter((m) => m.rcptTo.some((r) => recipients.includes(r)));
    if (mails.length >= recipients.length) {
      expect(mails).toHaveLength(recipients.length); // never a second copy
      return new Map(mails.map((m) => { expect(m.rcptTo).toHaveLength(1); return [m.rcptTo[0], m]; }));
    }
    if (Date.now() > deadline) throw new Error(`expected mail for ${recipients.join(', ')}, got ${mails.length}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a message from nodemailer', () => {
  it('goes out once per envelope recipient: its own Message-ID, tracked, unsubstituted, headers and attachment kept', async () => {
    const html = '<html><body><p>Hola ñandú ${first_name}</p><a href="https://shop.example/page?a=1">Go</a> <a href="mailto:help@shop.example">Help</a></body></html>';
    const client = transport();
    const info = await client.sendMail({
      from: '"Shop" <shop@example.com>',
      to: '"Ann Example" <ann.smtp@example.net>',
      cc: 'carl.smtp@example.net',
      bcc: 'hidden.smtp@example.net',
      replyTo: 'care@example.com',
      subject: 'Grüße ${order}',
      html,
      text: 'Texto ñandú ${first_name}',
      headers: { 'X-Campaign': 'spring sale' },
      attachments: [{ filename: 'pixel.png', content: PNG }],
    });
    client.close();
    expect(info.response).toMatch(/^250 OK queued as .+_transactional_/);
    const mails = await mailsFor('ann.smtp@example.net', 'carl.smtp@example.net', 'hidden.smtp@example.net');

    const request = await herald.services.store.sendRequests.findOne({ account: account.account, payload: { $regex: 'ann.smtp@example.net' } });
    expect(readSmtpSubmission(request!).rcptTo).toEqual(['ann.smtp@example.net', 'carl.smtp@example.net', 'hidden.smtp@example.net']);
    // The sink may have a copy a moment before its ledger row is written (rows are written once the relay answered).
    let ledger = await ledgerRows(herald.services.store, { account: account.account, requestId: request!._id });
    for (const deadline = Date.now() + 10_000; ledger.length < 3 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ledger = await ledgerRows(herald.services.store, { account: account.account, requestId: request!._id });
    }
    expect(ledger.map((row) => row.email).sort()).toEqual(['ann.smtp@example.net', 'carl.smtp@example.net', 'hidden.smtp@example.net']);

    const messageIds = new Set<string>();
    for (const [rcpt, mail] of mails) {
      const { parsed } = mail;
      expect(parsed.messageId).toBe(ledger.find((row) => row.email === rcpt)!.messageId);
      messageIds.add(parsed.messageId!);
      // The headers as the client wrote them, whichever recipient this copy is for; no Bcc.
      expect(parsed.headers.get('to')).toMatchObject({ text: '"Ann Example" <ann.smtp@example.net>' });
      expect(parsed.headers.get('cc')).toMatchObject({ text: 'carl.smtp@example.net' });
      expect(parsed.headers.has('bcc')).toBe(false);
      expect(mail.raw.toString('latin1')).not.toContain('hidden.smtp@example.net');
      expect(parsed.from?.text).toBe('"Shop" <shop@example.com>');
      expect(parsed.replyTo?.text).toBe('care@example.com');
      expect(parsed.subject).toBe('Grüße ${order}');
      expect(parsed.headers.get('x-campaign')).toBe('spring sale');
      // Tracked: the pixel before </body> (a background image: the message has no image of its own), the web link through a signed click link, mailto left alone.
      expect(parsed.html).toMatch(/<div style="width:1px;height:1px;[^"]*background-image:url\('http[^']+\/t\/o\/[^']+'\)">&nbsp;<\/div><\/body>/);
      expect(parsed.html).toMatch(/<a href="http[^"]+\/t\/c\/[^"]+">Go<\/a>/);
      expect(parsed.html).not.toContain('https://shop.example/page');
      expect(parsed.html).toContain('<a href="mailto:help@shop.example">Help</a>');
      // Nothing substituted, 8-bit text intact.
      expect(parsed.html).toContain('Hola ñandú ${first_name}');
      expect(parsed.text?.trim()).toBe('Texto ñandú ${first_name}');
      expect(parsed.attachments.map((a) => [a.filename, a.content.toString('base64')])).toEqual([['pixel.png', PNG.toString('base64')]]);
    }
    expect(messageIds.size).toBe(3);

    const sent = await waitForEvents(request!.batchId, 3);
    expect(sent.map((e) => e.email).sort()).toEqual(['ann.smtp@example.net', 'carl.smtp@example.net', 'hidden.smtp@example.net']);
    expect(new Set(sent.map((e) => e.mail_id)).size).toBe(3);
    expect(sent.every((e) => e.track_type === 'track.mail.sent' && e.tags.length === 0 && Object.keys(e.custom_args).length === 0)).toBe(true);
  });

  it('sends the parts the client wrote: an HTML-only message gets a text part made from it, a text-only one no HTML', async () => {
    const client = transport();
    await client.sendMail({ from: 'shop@example.com', to: 'htmlonly.smtp@example.net', subject: 'HTML only', html: '<p>Only <b>HTML</b></p>' });
    await client.sendMail({ from: 'shop@example.com', to: 'textonly.smtp@example.net', subject: 'Text only', text: 'Only text' });
    client.close();
    const html = (await mailsFor('htmlonly.smtp@example.net')).get('htmlonly.smtp@example.net')!;
    const text = (await mailsFor('textonly.smtp@example.net')).get('textonly.smtp@example.net')!;
    expect(html.raw.toString('latin1')).toMatch(/^Content-Type: multipart\/alternative;/im);
    expect(html.parsed.text?.trim()).toBe('Only HTML');
    expect(html.parsed.html).toContain('<p>Only <b>HTML</b></p>');
    expect(text.raw.toString('latin1')).not.toMatch(/^Content-Type: text\/html/im);
    expect(text.parsed.text?.trim()).toBe('Only text');
  });

  it('drops a suppressed recipient (track.mail.dropped, no mail) and sends to the others', async () => {
    await suppress(herald.services.store, account.account, 'gone.smtp@example.net', 'unsubscribed');
    const client = transport();
    await client.sendMail({ from: 'shop@example.com', to: ['gone.smtp@example.net', 'here.smtp@example.net'], subject: 'Suppressed', text: 'hi' });
    client.close();
    await mailsFor('here.smtp@example.net');
    const request = await herald.services.store.sendRequests.findOne({ account: account.account, payload: { $regex: 'gone.smtp@example.net' } });
    const events = await waitForEvents(request!.batchId, 2);
    expect(events.map((e) => [e.email, e.track_type]).sort()).toEqual([
      ['gone.smtp@example.net', 'track.mail.dropped'], ['here.smtp@example.net', 'track.mail.sent'],
    ]);
    expect(herald.sink.received.some((m) => m.rcptTo.includes('gone.smtp@example.net'))).toBe(false);
  });

  it('accepts a retry with the same Idempotency-Key once: the same answer, one request, one mail', async () => {
    const client = transport();
    const message = {
      from: 'shop@example.com', to: 'once.smtp@example.net', subject: 'Once', text: 'only once',
      headers: { 'Idempotency-Key': 'order-4711-confirmation' }, messageId: '<fixed-4711@shop.example>', date: new Date('2026-11-24T10:00:00Z'),
    };
    const first = await client.sendMail(message);
    const second = await client.sendMail(message);
    client.close();
    expect(second.response).toBe(first.response);
    await mailsFor('once.smtp@example.net');
    expect(await herald.services.store.sendRequests.countDocuments({ account: account.account, payload: { $regex: 'once.smtp@example.net' } })).toBe(1);
    const mail = (await mailsFor('once.smtp@example.net')).get('once.smtp@example.net')!;
    expect(mail.parsed.headers.has('idempotency-key')).toBe(false);
    expect(mail.parsed.date?.toISOString()).toBe('2026-11-24T10:00:00.000Z');
  });
});

describe('other clients', () => {
  it('Python smtplib: AUTH LOGIN, an 8-bit UTF-8 body (8BITMIME) arrives intact', async () => {
    const script = [
      'import os, smtplib',
      'from email.message import EmailMessage',
      'm = EmailMessage()',
      'm["From"] = "Tienda <tienda@example.com>"',
      'm["To"] = "py.smtp@example.net"',
      'm["Subject"] = "Pedido enviado ✓"',
      'm.set_content("Hola Zoë, tu pedido ñ-42 salió. ${x} stays\\n", cte="8bit")',
      's = smtplib.SMTP("127.0.0.1", int(os.environ["PORT"]))',
      's.ehlo()',
      'assert s.has_extn("8bitmime") and s.has_extn("size") and "LOGIN" in s.esmtp_features["auth"]',
      's.login("apikey", os.environ["KEY"])',
      'print(s.send_message(m))',
      's.quit()',
    ].join('\n');
    const { stdout } = await run('python3', ['-c', script], { timeout: 30_000, env: { ...process.env, PORT: String(herald.smtpPort), KEY: account.transactionalKey } });
    expect(stdout.trim()).toBe('{}'); // no refused recipients
    const mail = (await mailsFor('py.smtp@example.net')).get('py.smtp@example.net')!;
    expect(mail.parsed.subject).toBe('Pedido enviado ✓');
    expect(mail.parsed.text).toBe('Hola Zoë, tu pedido ñ-42 salió. ${x} stays\n');
    expect(mail.parsed.from?.value).toEqual([{ name: 'Tienda', address: 'tienda@example.com' }]);
  });

  it('swaks: AUTH LOGIN, a plain message with its own header', async () => {
    const { stdout } = await run('swaks', [
      '--server', '127.0.0.1', '--port', String(herald.smtpPort), '--auth', 'LOGIN', '--auth-user', 'apikey', '--auth-password', account.transactionalKey,
      '--from', 'swaks@example.com', '--to', 'swaks.smtp@example.net', '--header', 'Subject: via swaks', '--add-header', 'X-Tool: swaks',
      '--body', 'hello from swaks',
    ], { timeout: 30_000 });
    expect(stdout).toMatch(/^<- +235 /m);
    expect(stdout).toMatch(/^<- +250 OK queued as /m);
    const mail = (await mailsFor('swaks.smtp@example.net')).get('swaks.smtp@example.net')!;
    expect(mail.parsed.subject).toBe('via swaks');
    expect(mail.parsed.headers.get('x-tool')).toBe('swaks');
    expect(mail.parsed.text?.trim()).toBe('hello from swaks');
  });
});

async function waitForEvents(batchId: string, count: number) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = await herald.services.store.events.find({ account: account.account, batch_id: batchId }).toArray();
    if (events.length >= count) return events;
    if (Date.now() > deadline) throw new Error(`expected ${count} events for ${batchId}, got ${events.length}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
