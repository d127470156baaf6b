// Bounces and complaints after the relay's 250, over real SMTP: a message sent through
// POST /v1/mail/send leaves with its own signed return path (the sink records the envelope); a
// DSN or an ARF report delivered to Herald's SMTP listener like a remote MTA would (no AUTH, from
// `<>`) becomes its event, suppresses the address and marks the contact; forged return paths are
// refused and record nothing; another account's message is out of reach; the store down is 451.
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import type { SMTPServer } from 'smtp-server';
import { createAccount, type NewAccount } from '../../core/accounts/accounts';
import { GENERAL_FIELDS } from '../../core/tracking/events';
import { createLogger } from '../../adapters/logger';
import { metrics } from '../../adapters/metrics/registry';
import { connectStore } from '../../adapters/store/store';
import type { EventDoc } from '../../adapters/store/store';
import { startEmbeddedStore } from '../../infra/store';
import { createSmtpServer } from '../../smtp/server';
import { bounceFixture, type BounceFixture } from '../support/bounce-fixtures';
import { batchEvents } from '../support/events';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { openDialog } from '../support/smtp-dialog';
import { ledgerCount } from '../support/ledger';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald({ ownStack: true }); // its metrics are this realm's registry
  [acme, other] = await Promise.all([herald.newAccount(), herald.newAccount()]);
});
afterAll(() => herald?.stop());

interface Sent { mailId: string; batchId: string; returnPath: string; messageId: string; sentEvent: EventDoc }

/** Sends one message to `email` through the HTTP API and waits until the relay (the sink) has it. */
async function sendTo(account: NewAccount, email: string): Promise<Sent> {
  const answer = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: { authorization: `Bearer ${account.transactionalKey}` },
    json: { from: { email: 'shop@example.com' }, subject: 'Your order', content: { text: 'Thank you' }, recipients: [{ to: { email } }] },
  });
  expect(answer.status).toBe(202);
  const batchId = answer.headers.get('herald-batch-id')!;
  const [sentEvent] = await batchEvents(herald.services.store, account.account, batchId, 1);
  expect(sentEvent.track_type).toBe('track.mail.sent');
  // The ledger row (which reports are matched against) is written beside the event: wait for both.
  for (const deadline = Date.now() + 10_000; (await ledgerCount(herald.services.store, { _id: sentEvent.mail_id, account: account.account })) === 0;) {
    if (Date.now() > deadline) throw new Error(`no ledger row for ${sentEvent.mail_id}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const mail = await receivedFor(email);
  return { mailId: sentEvent.mail_id, batchId, returnPath: mail.mailFrom, messageId: mail.parsed.messageId!, sentEvent };
}

async function receivedFor(email: string) {
  for (const deadline = Date.now() + 30_000; ;) {
    const mail = herald.sink.received.find((m) => m.rcptTo.includes(email));
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`the relay got nothing for ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Delivers a report to Herald's SMTP listener as a remote MTA does: no AUTH, null sender unless given. */
async function deliver(to: string, raw: Buffer, from = '', port = herald.smtpPort) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, ignoreTLS: true });
  try {
    return await transport.sendMail({ envelope: { from, to: [to] }, raw });
  } finally {
    transport.close();
  }
}

const report = (name: BounceFixture, sent: Sent, recipient: string, reportTo?: string) =>
  bounceFixture(name, { return_path: sent.returnPath, recipient, message_id: sent.messageId, report_to: reportTo });
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1);
const eventsOf = (account: string, mailId: string) => herald.services.store.events.find({ account, mail_id: mailId }).sort({ _id: 1 }).toArray();
const bouncedCount = async () => (await metrics.messages.get()).values.find((v) => v.labels.outcome === 'bounced')?.value ?? 0;
const contactState = async (account: string, email: string) => (await herald.services.store.contacts.findOne({ account, email }))?.state;
const newContact = (account: NewAccount, email: string) => callHerald(herald.baseUrl, 'POST', `/v2/${account.account}/contacts`, {
  headers: { authorization: `Bearer ${account.apiKey}` }, json: { email },
});

describe('the return path', () => {
  it('is the message\'s own, signed, on the bounce domain; From and DKIM stay the sender\'s', async () => {
    const sent = await sendTo(acme, 'path@example.org');
    const mail = await receivedFor('path@example.org');
    expect(sent.returnPath).toMatch(/^[a-z0-9]+-[0-9a-f]{20}@bounces\./);
    expect(sent.returnPath.slice(0, sent.returnPath.indexOf('-'))).toBe(sent.mailId.slice('mail_'.length));
    expect(sent.returnPath.indexOf('@')).toBeLessThanOrEqual(64);
    expect(mail.parsed.from?.value[0].address).toBe('shop@example.com');
    expect(sent.messageId).toBe(`<${sent.mailId}@herald.test>`);
  });
});

describe('a hard bounce (DSN)', () => {
  it('records track.mail.bounced with the message\'s fields, suppresses the address, marks the contact; the next send is dropped', async () => {
    const email = 'gone.later@example.org';
    expect((await newContact(acme, email)).status).toBe(200);
    const sent = await sendTo(acme, email);
    const before = await bouncedCount();

    const info = await deliver(sent.returnPath, report('postfix-hard', sent, email));
    expect(info.response).toMatch(/^250 .*hard bounce recorded/);
    const events = await eventsOf(acme.account, sent.mailId);
    const bounced = events.filter((e) => e.track_type === 'track.mail.bounced');
    expect(bounced).toHaveLength(1);
    const { _id, ...fields } = bounced[0];
    expect(Object.keys(fields).sort()).toEqual([...GENERAL_FIELDS, 'bounce_type', 'message'].sort());
    for (const field of ['batch_id', 'mail_id', 'mail_type', 'account', 'email', 'domain', 'tags', 'custom_args', 'mta', 'sent_timestamp'] as const) {
      expect(fields[field]).toEqual(sent.sentEvent[field]);
    }
    expect(fields).toMatchObject({ email, bounce_type: 'hard', mail_id: sent.mailId, batch_id: sent.batchId });
    expect(fields.message).toMatch(/^This is the mail system at host mail\.example\.net\./);
    expect(fields.message).toContain('550 5.1.1');
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email })).toMatchObject({ reason: 'bounced', source: 'report' });
    expect(await contactState(acme.account, email)).toBe('BOUNCED');
    expect(await bouncedCount()).toBe(before + 1);

    // The same report delivered again (the MTA did not see our 250): still one event, counted once.
    expect((await deliver(sent.returnPath, report('postfix-hard', sent, email))).response).toMatch(/^250 /);
    expect((await eventsOf(acme.account, sent.mailId)).filter((e) => e.track_type === 'track.mail.bounced')).toHaveLength(1);
    expect(await bouncedCount()).toBe(before + 1);

    const again = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
      headers: { authorization: `Bearer ${acme.transactionalKey}` },
      json: { from: { email: 'shop@example.com' }, subject: 'Again', content: { text: 'x' }, recipients: [{ to: { email } }] },
    });
    const [dropped] = await batchEvents(herald.services.store, acme.account, again.headers.get('herald-batch-id')!, 1);
    expect(dropped).toMatchObject({ track_type: 'track.mail.dropped', email });
    expect(herald.sink.received.filter((m) => m.rcptTo.includes(email))).toHaveLength(1);
  });

  it('takes Exchange\'s report (multipart/alternative notice) the same way', async () => {
    const email = 'nobody.exchange@example.org';
    const sent = await sendTo(acme, email);
    await deliver(sent.returnPath, report('exchange-hard', sent, email));
    const [bounced] = (await eventsOf(acme.account, sent.mailId)).filter((e) => e.track_type === 'track.mail.bounced');
    expect(bounced).toMatchObject({ bounce_type: 'hard', message: expect.stringMatching(/^Your message to nobody\.exchange@example\.org couldn't be delivered\./) });
  });
});

describe('a soft bounce (4.x.x, delayed)', () => {
  it('records a soft track.mail.bounced and suppresses nothing: the next send goes out', async () => {
    const email = 'full.mailbox@example.org';
    expect((await newContact(acme, email)).status).toBe(200);
    const sent = await sendTo(acme, email);
    expect((await deliver(sent.returnPath, report('postfix-delayed', sent, email))).response).toMatch(/^250 .*soft bounce recorded/);
    const [bounced] = (await eventsOf(acme.account, sent.mailId)).filter((e) => e.track_type === 'track.mail.bounced');
    expect(bounced).toMatchObject({ bounce_type: 'soft', email, message: expect.stringContaining('452 4.2.2') });
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email })).toBeNull();
    expect(await contactState(acme.account, email)).toBe('ACTIVE');
    const before = herald.sink.received.filter((m) => m.rcptTo.includes(email)).length;
    await sendTo(acme, email);
    expect(herald.sink.received.filter((m) => m.rcptTo.includes(email)).length).toBe(before + 1);
  });
});

describe('a complaint (ARF)', () => {
  it('to the complaint address, found by the reported Message-ID: track.mail.unsubscribed reason spam_fbl, suppressed, contact COMPLAINED', async () => {
    const email = 'annoyed@example.net';
    expect((await newContact(acme, email)).status).toBe(200);
    const sent = await sendTo(acme, email);
    const fbl = `fbl@${domainOf(sent.returnPath)}`;
    // A feedback loop sends from its own address, and this report carries only the headers.
    const info = await deliver(fbl, report('arf-headers-only', sent, email, fbl), 'staff@feedback.example-webmail.com');
    expect(info.response).toMatch(/^250 .*complaint recorded/);
    const [complaint] = (await eventsOf(acme.account, sent.mailId)).filter((e) => e.track_type === 'track.mail.unsubscribed');
    const { _id, ...fields } = complaint;
    expect(Object.keys(fields).sort()).toEqual([...GENERAL_FIELDS, 'reason'].sort());
    expect(fields).toMatchObject({ reason: 'spam_fbl', email, mail_id: sent.mailId, batch_id: sent.batchId, account: acme.account });
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email })).toMatchObject({ reason: 'complained', source: 'report' });
    expect(await contactState(acme.account, email)).toBe('COMPLAINED');
  });

  it('with the message inline, found by Original-Mail-From (the return path)', async () => {
    const email = 'inline.complaint@example.net';
    const sent = await sendTo(acme, email);
    const fbl = `fbl@${domainOf(sent.returnPath)}`;
    await deliver(fbl, report('arf-abuse', sent, email, fbl), 'feedback@arf.example-mailbox.net');
    expect((await eventsOf(acme.account, sent.mailId)).filter((e) => e.track_type === 'track.mail.unsubscribed')).toMatchObject([{ reason: 'spam_fbl' }]);
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email })).toMatchObject({ reason: 'complained' });
  });
});

describe('what is refused or ignored', () => {
  it('refuses a forged return path with 550 at RCPT TO and records nothing', async () => {
    const email = 'target@example.org';
    const sent = await sendTo(acme, email);
    const [core, signature] = sent.returnPath.slice(0, sent.returnPath.indexOf('@')).split('-');
    const domain = domainOf(sent.returnPath);
    const forged = [`${core}-${signature.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'))}@${domain}`, `${core}@${domain}`, `someone@${domain}`];
    for (const address of forged) {
      await expect(deliver(address, report('postfix-hard', sent, email))).rejects.toMatchObject({ responseCode: 550 });
    }
    expect((await eventsOf(acme.account, sent.mailId)).map((e) => e.track_type)).toEqual(['track.mail.sent']);
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email })).toBeNull();
  });

  it('a report for another account\'s message cannot touch this one: the return path decides, and it is signed', async () => {
    const email = 'shared.person@example.org';
    const ours = await sendTo(acme, email);
    const theirs = await sendTo(other, 'their.customer@example.org');
    // Sent to their message's return path, naming our message inside: it is about their message only.
    const crafted = bounceFixture('postfix-hard', { return_path: ours.returnPath, recipient: email, message_id: ours.messageId });
    expect((await deliver(theirs.returnPath, crafted)).response).toMatch(/^250 /);
    expect((await eventsOf(acme.account, ours.mailId)).map((e) => e.track_type)).toEqual(['track.mail.sent']);
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email })).toBeNull();
    // Their message's id under our signature (or the reverse) is a forgery.
    const [ourCore, ourSignature] = ours.returnPath.slice(0, ours.returnPath.indexOf('@')).split('-');
    const [theirCore, theirSignature] = theirs.returnPath.slice(0, theirs.returnPath.indexOf('@')).split('-');
    const domain = domainOf(ours.returnPath);
    await expect(deliver(`${theirCore}-${ourSignature}@${domain}`, crafted)).rejects.toMatchObject({ responseCode: 550 });
    await expect(deliver(`${ourCore}-${theirSignature}@${domain}`, crafted)).rejects.toMatchObject({ responseCode: 550 });
    expect((await eventsOf(other.account, theirs.mailId)).map((e) => e.track_type)).toEqual(['track.mail.sent']); // the report named another recipient
  });

  it('takes an out-of-office reply to a return path (250) and records nothing', async () => {
    const email = 'away@example.org';
    const sent = await sendTo(acme, email);
    expect((await deliver(sent.returnPath, report('auto-reply', sent, email), email)).response).toMatch(/^250 .*nothing to record/);
    expect((await eventsOf(acme.account, sent.mailId)).map((e) => e.track_type)).toEqual(['track.mail.sent']);
  });

  it('without AUTH takes only the bounce domain: 530 for any other recipient; a report transaction has one recipient (452)', async () => {
    const sent = await sendTo(acme, 'session@example.org');
    const dialog = await openDialog(herald.smtpPort);
    await dialog.reply();
    await dialog.command('EHLO mx.remote.example');
    expect((await dialog.command('MAIL FROM:<>')).code).toBe(250);
    expect((await dialog.command('RCPT TO:<someone@example.net>')).code).toBe(530);
    expect((await dialog.command(`RCPT TO:<${sent.returnPath}>`)).code).toBe(250);
    expect((await dialog.command(`RCPT TO:<fbl@${domainOf(sent.returnPath)}>`)).code).toBe(452);
    expect((await dialog.command('RSET')).code).toBe(250);
    // Logged in, a submission cannot take a report recipient beside its own.
    expect((await dialog.login(acme.transactionalKey)).code).toBe(235);
    expect((await dialog.command('MAIL FROM:<shop@example.com>')).code).toBe(250);
    expect((await dialog.command('RCPT TO:<someone@example.net>')).code).toBe(250);
    expect((await dialog.command(`RCPT TO:<${sent.returnPath}>`)).code).toBe(452);
    dialog.end();
  });
});

describe('with the store down', () => {
  let listener: SMTPServer | undefined;
  afterAll(() => new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve())));

  it('answers 451 after the data, so the reporting MTA keeps the report and retries', async () => {
    const dir = path.join(os.tmpdir(), `herald-bounce-down-${process.pid}`);
    const embedded = await startEmbeddedStore({ file: null, logFile: `${dir}.log`, shortLived: true });
    const store = await connectStore(embedded.uri, 'herald_bounce_down');
    try {
      await createAccount(store, 'bouncedown');
      listener = createSmtpServer({ ...herald.services, store, logger: createLogger('silent') }, { bounceDomain: 'bounces.down.example' });
      await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
      const port = (listener.server.address() as AddressInfo).port;
      const dialog = await openDialog(port);
      await dialog.reply();
      await dialog.command('EHLO mx.remote.example');
      expect((await dialog.command('MAIL FROM:<>')).code).toBe(250);
      expect((await dialog.command('RCPT TO:<fbl@bounces.down.example>')).code).toBe(250);
      await embedded.stop();
      expect((await dialog.command('DATA')).code).toBe(354);
      const raw = bounceFixture('arf-headers-only', { return_path: 'x-y@bounces.down.example', recipient: 'a@example.org', message_id: '<mail_abc@herald.test>' });
      dialog.write(Buffer.concat([raw, Buffer.from('\r\n.\r\n')]));
      expect((await dialog.reply(30_000)).code).toBe(451);
      dialog.end();
    } finally {
      await store.close().catch(() => undefined);
      await embedded.stop().catch(() => undefined);
    }
  });
});
