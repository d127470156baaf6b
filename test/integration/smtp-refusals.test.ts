// Every refusal of the SMTP listener with its reply code, and that a refused message leaves
// nothing recorded: 530 before AUTH, 535 and the slow-down then lock-out of failed logins, 553 for
// a sender outside the account's domains, 550 for its policy on the From header and attachments,
// 554 for an attachment outside the spec's formats, 452 past 1000 recipients, 552 once the data
// passes SIZE, 421 past the per-address connection limit and at shutdown, 451 with the store down.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import type { SMTPServer } from 'smtp-server';
import { updateAccountSettings } from '../../core/accounts/settings';
import { createAccount, type NewAccount } from '../../core/accounts/accounts';
import { createLogger } from '../../adapters/logger';
import { connectStore } from '../../adapters/store/store';
import { startEmbeddedStore } from '../../infra/store';
import { createSmtpServer, MAX_MESSAGE_BYTES, type SmtpOptions } from '../../smtp/server';
import { startTestHerald, type TestHerald } from '../support/herald';
import { openDialog } from '../support/smtp-dialog';

const run = promisify(execFile);
let herald: TestHerald;
let account: NewAccount;
const listeners: SMTPServer[] = [];

beforeAll(async () => {
  herald = await startTestHerald();
  account = await herald.newAccount();
});
afterAll(async () => {
  await Promise.all(listeners.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  await herald?.stop();
});

/** A listener of its own on the shared stack, with these options; its port. */
async function listener(options: Partial<SmtpOptions>, deps = herald.services): Promise<{ port: number; server: SMTPServer }> {
  const server = createSmtpServer({ ...deps, logger: createLogger('silent') }, options);
  listeners.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.server.address() as AddressInfo).port, server };
}

const requestsOf = (name: string) => herald.services.store.sendRequests.countDocuments({ account: name });

async function loggedIn(port: number, key = account.transactionalKey) {
  const dialog = await openDialog(port);
  expect((await dialog.reply()).code).toBe(220);
  expect((await dialog.command('EHLO client.test')).code).toBe(250);
  expect((await dialog.login(key)).code).toBe(235);
  return dialog;
}

describe('the session', () => {
  it('advertises 8BITMIME, SIZE (the 10 MB limit), AUTH LOGIN PLAIN and PIPELINING; no STARTTLS without a certificate', async () => {
    const dialog = await openDialog(herald.smtpPort);
    await dialog.reply();
    const ehlo = await dialog.command('EHLO client.test');
    dialog.end();
    expect(ehlo.text.split('\n')).toEqual(expect.arrayContaining(['8BITMIME', `SIZE ${MAX_MESSAGE_BYTES}`, 'AUTH LOGIN PLAIN', 'PIPELINING']));
    expect(ehlo.text).not.toContain('STARTTLS');
  });

  it('answers MAIL FROM before AUTH with 530', async () => {
    const { port } = await listener({}); // no bounce domain: no reports, AUTH before anything
    const dialog = await openDialog(port);
    await dialog.reply();
    await dialog.command('EHLO client.test');
    expect((await dialog.command('MAIL FROM:<shop@example.com>')).code).toBe(530);
    dialog.end();
  });

  it('with a bounce domain, answers RCPT TO before AUTH with 530 (MAIL FROM is taken: reports come without AUTH) and records nothing', async () => {
    const before = await requestsOf(account.account);
    const dialog = await openDialog(herald.smtpPort);
    await dialog.reply();
    await dialog.command('EHLO client.test');
    expect((await dialog.command('MAIL FROM:<shop@example.com>')).code).toBe(250);
    expect((await dialog.command('RCPT TO:<someone@example.net>')).code).toBe(530);
    expect((await dialog.command('DATA')).code).toBe(503); // no recipient was taken
    dialog.end();
    expect(await requestsOf(account.account)).toBe(before);
  });

  it('refuses a sender or recipient that is not a valid email address (501 for bad syntax, 553 for an address the spec refuses)', async () => {
    const dialog = await loggedIn(herald.smtpPort);
    expect((await dialog.command('MAIL FROM:<not-an-address>')).code).toBe(501); // smtp-server's own syntax check
    expect((await dialog.command('MAIL FROM:<shop@localhost>')).code).toBe(553); // an address, not one the spec's rules take
    expect((await dialog.command('MAIL FROM:<shop@example.com>')).code).toBe(250);
    expect((await dialog.command('RCPT TO:<nobody@localhost>')).code).toBe(553);
    expect((await dialog.command('RCPT TO:<ok@example.net>')).code).toBe(250);
    dialog.end();
  });

  it('takes at most 1000 recipients per message (452 for the 1001st)', async () => {
    const dialog = await loggedIn(herald.smtpPort);
    expect((await dialog.command('MAIL FROM:<shop@example.com>')).code).toBe(250);
    for (let i = 0; i < 1000; i++) dialog.write(`RCPT TO:<r${i}@example.net>\r\n`);
    for (let i = 0; i < 1000; i++) expect((await dialog.reply()).code).toBe(250);
    expect((await dialog.command('RCPT TO:<r1000@example.net>')).code).toBe(452);
    dialog.end();
  });

  it('refuses with 552 once the data passes SIZE, keeps nothing, and the session goes on', async () => {
    const before = await requestsOf(account.account);
    const dialog = await loggedIn(herald.smtpPort);
    await dialog.command('MAIL FROM:<shop@example.com>');
    await dialog.command('RCPT TO:<big@example.net>');
    expect((await dialog.command('DATA')).code).toBe(354);
    dialog.write('From: shop@example.com\r\nSubject: big\r\n\r\n');
    const line = `${'x'.repeat(998)}\r\n`;
    for (let sent = 0; sent <= MAX_MESSAGE_BYTES; sent += line.length * 1024) dialog.write(line.repeat(1024));
    dialog.write('.\r\n');
    const reply = await dialog.reply(60_000);
    expect(reply.code).toBe(552);
    expect((await dialog.command('RSET')).code).toBe(250);
    dialog.end();
    expect(await requestsOf(account.account)).toBe(before);
  });
});

describe('the account\'s policy', () => {
  let strict: NewAccount;
  beforeAll(async () => {
    strict = await herald.newAccount();
    await updateAccountSettings(herald.services.store, strict.account, { senderDomains: ['shop.example'] });
  });

  it('refuses a MAIL FROM outside the sender domains with 553, naming them', async () => {
    const dialog = await loggedIn(herald.smtpPort, strict.transactionalKey);
    const reply = await dialog.command('MAIL FROM:<someone@elsewhere.example>');
    dialog.end();
    expect(reply).toEqual({ code: 553, text: expect.stringContaining('origin address not allowed: this account sends only from shop.example') });
  });

  it('refuses a From header outside the sender domains with 550 and records nothing', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: herald.smtpPort, ignoreTLS: true, auth: { user: 'apikey', pass: strict.transactionalKey } });
    await expect(transport.sendMail({ envelope: { from: 'bounce@shop.example', to: ['x@example.net'] }, from: 'ceo@elsewhere.example', to: 'x@example.net', subject: 's', text: 't' }))
      .rejects.toMatchObject({ responseCode: 550, response: expect.stringContaining('origin address not allowed') });
    transport.close();
    expect(await requestsOf(strict.account)).toBe(0);
  });

  it('refuses attachments with 550 unless the account allows them, and one outside the formats with 554', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: herald.smtpPort, ignoreTLS: true, auth: { user: 'apikey', pass: strict.transactionalKey } });
    const send = (filename: string, content: Buffer) => transport.sendMail({ from: 'a@shop.example', to: 'x@example.net', subject: 's', text: 't', attachments: [{ filename, content }] });
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    await expect(send('invoice.pdf', pdf)).rejects.toMatchObject({ responseCode: 550, response: expect.stringContaining('attachments are not enabled') });
    await updateAccountSettings(herald.services.store, strict.account, { attachments: true });
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the listener applies a changed policy within a second
    await expect(send('tool.exe', Buffer.from('MZ\x90\x00'))).rejects.toMatchObject({ responseCode: 554, response: expect.stringContaining('tool.exe') });
    transport.close();
    expect(await requestsOf(strict.account)).toBe(0);
  });
});

describe('failed logins', () => {
  // The hold is a step far longer than an answer takes even on a busy machine, so "held" and "not
  // held" are told apart without a tight clock; how fast a first AUTH is answered is measured by
  // the smtp-auth benchmark (bench/smtp-auth.ts).
  const STEP_MS = 2000;
  it('are answered later and later from one address, across its connections, then refused for a while (454) even with the right key', async () => {
    const { port } = await listener({
      authThrottle: { freeFailures: 2, delayStepMs: STEP_MS, maxDelayMs: STEP_MS, lockAfter: 4, lockMs: 60_000, windowMs: 60_000, maxAddresses: 100 },
    });
    const attempt = async (key: string) => {
      const dialog = await openDialog(port); // a new connection each time: the count is the address's
      await dialog.reply();
      await dialog.command('EHLO client.test');
      const started = Date.now();
      const reply = await dialog.login(key);
      dialog.end();
      return { code: reply.code, ms: Date.now() - started };
    };
    const wrong = `${account.account}-tr-wrongwrongwrongwrongwrongwrong12`;
    const first = await attempt(wrong);
    const second = await attempt(wrong);
    const third = await attempt(wrong); // past the two free failures: held one step
    expect([first.code, second.code, third.code]).toEqual([535, 535, 535]);
    expect(first.ms).toBeLessThan(STEP_MS); // not held
    expect(second.ms).toBeLessThan(STEP_MS);
    expect(third.ms).toBeGreaterThanOrEqual(STEP_MS);
    expect((await attempt(wrong)).code).toBe(535); // the 4th failure locks the address
    expect((await attempt(account.transactionalKey)).code).toBe(454);
  });
});

describe('connections', () => {
  it('refuses a client address past its connection limit with 421', async () => {
    const { port } = await listener({ maxClientsPerAddress: 2 });
    const [a, b] = await Promise.all([openDialog(port), openDialog(port)]);
    expect((await a.reply()).code).toBe(220);
    expect((await b.reply()).code).toBe(220);
    const c = await openDialog(port);
    expect((await c.reply()).code).toBe(421);
    await c.closed;
    a.end();
    await a.closed;
    const d = await openDialog(port); // a freed slot is usable again
    expect((await d.reply()).code).toBe(220);
    b.end();
    d.end();
  });

  it('keeps counting an address right when connections are refused for the total limit', async () => {
    const { port } = await listener({ maxClients: 3, maxClientsPerAddress: 2 });
    const a = await openDialog(port);
    const b = await openDialog(port);
    const other = await openDialog(port, '127.0.0.2');
    for (const d of [a, b, other]) expect((await d.reply()).code).toBe(220);
    const refused = await openDialog(port); // over the total: refused before it is counted for its address
    expect((await refused.reply()).code).toBe(421);
    await refused.closed;
    other.end();
    await other.closed;
    const third = await openDialog(port); // a total slot is free, but this address already has two
    expect(await third.reply()).toEqual({ code: 421, text: expect.stringContaining('from your address') });
    a.end();
    b.end();
  });

  it('at shutdown lets a session finish its message, then tells the idle ones 421', async () => {
    // The grace period must outlast the message's acceptance on this machine (store writes, which a
    // busy machine slows): twenty times a message's, timed on the shared listener just before.
    const timing = await loggedIn(herald.smtpPort);
    await timing.command('MAIL FROM:<shop@example.com>');
    await timing.command('RCPT TO:<timing@example.net>');
    await timing.command('DATA');
    const started = performance.now();
    expect((await timing.command('From: shop@example.com\r\nSubject: timing\r\n\r\nhow long an acceptance takes\r\n.')).code).toBe(250);
    const acceptanceMs = performance.now() - started;
    timing.end();
    const { port, server } = await listener({ closeTimeoutMs: Math.max(1500, 20 * acceptanceMs) });
    const busy = await loggedIn(port);
    const idle = await loggedIn(port);
    await busy.command('MAIL FROM:<shop@example.com>');
    await busy.command('RCPT TO:<late@example.net>');
    expect((await busy.command('DATA')).code).toBe(354);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    busy.write('From: shop@example.com\r\nSubject: in flight at shutdown\r\n\r\nstill accepted\r\n.\r\n');
    expect((await busy.reply()).code).toBe(250);
    expect(await idle.reply(60_000)).toEqual({ code: 421, text: expect.stringContaining('shutting down') });
    await closed;
    listeners.splice(listeners.indexOf(server), 1);
  });
});

describe('TLS', () => {
  it('offers STARTTLS with a key and certificate; with TLS required, refuses AUTH before it and takes it after', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-smtp-tls-'));
    try {
      await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
        '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { timeout: 30_000 });
      const tls = { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) };
      const { port } = await listener({ tls, requireTls: true });
      const dialog = await openDialog(port);
      await dialog.reply();
      expect((await dialog.command('EHLO client.test')).text.split('\n')).toContain('STARTTLS');
      expect((await dialog.login(account.transactionalKey)).code).toBe(538);
      dialog.end();
      const transport = nodemailer.createTransport({
        host: '127.0.0.1', port, requireTLS: true, tls: { rejectUnauthorized: false }, auth: { user: 'apikey', pass: account.transactionalKey },
      });
      const info = await transport.sendMail({ from: 'shop@example.com', to: 'tls.smtp@example.net', subject: 'over TLS', text: 'secret' });
      transport.close();
      expect(info.response).toMatch(/^250 /);
      for (const deadline = Date.now() + 30_000; !herald.sink.received.some((m) => m.rcptTo.includes('tls.smtp@example.net'));) {
        if (Date.now() > deadline) throw new Error('the message sent over TLS did not reach the relay');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('with the store down', () => {
  it('answers 451, so the client keeps the message and retries', async () => {
    const dir = path.join(os.tmpdir(), `herald-smtp-down-${process.pid}`);
    const embedded = await startEmbeddedStore({ file: null, logFile: `${dir}.log`, shortLived: true });
    const store = await connectStore(embedded.uri, 'herald_smtp_down');
    try {
      const own = await createAccount(store, 'smtpdown');
      const { port } = await listener({}, { ...herald.services, store });
      const dialog = await loggedIn(port, own.transactionalKey);
      await embedded.stop();
      const reply = await dialog.command('MAIL FROM:<shop@example.com>');
      dialog.end();
      expect(reply.code).toBe(451);
    } finally {
      await store.close().catch(() => undefined);
      await embedded.stop().catch(() => undefined);
    }
  });
});
