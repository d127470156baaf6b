import nodemailer from 'nodemailer';
import type { NewAccount } from '../../core/accounts/accounts';
import { suppressMany } from '../../core/sending/suppressions';
import { startTestHerald, type TestHerald } from '../support/herald';

let herald: TestHerald;
let account: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  account = await herald.newAccount();
});
afterAll(() => herald?.stop());

const client = (password: string) => nodemailer.createTransport({
  host: '127.0.0.1', port: herald.smtpPort, secure: false, ignoreTLS: true, auth: { user: 'apikey', pass: password },
});

describe('SMTP submission on the listener', () => {
  it('accepts a message with AUTH LOGIN (user apikey, the transactional key) and relays it', async () => {
    const transport = client(account.transactionalKey);
    const info = await transport.sendMail({
      from: 'app@example.com', to: 'ada@example.net', subject: 'Via SMTP', text: 'hello over smtp', headers: { 'X-Custom': 'kept' },
    });
    transport.close();
    expect(info.response).toMatch(/^250 /);
    const mail = (await herald.sink.waitFor(1)).find((m) => m.parsed.subject === 'Via SMTP')!;
    expect(mail.rcptTo).toEqual(['ada@example.net']);
    expect(mail.parsed.text?.trim()).toBe('hello over smtp');
    expect(mail.parsed.headers.get('x-custom')).toBe('kept');
  });

  it('refuses a wrong key with 535 and queues nothing', async () => {
    const before = await herald.services.store.sendRequests.countDocuments({ account: account.account });
    const transport = client(`${account.account}-tr-wrongwrongwrongwrongwrongwrong12`);
    await expect(transport.sendMail({ from: 'app@example.com', to: 'x@example.net', subject: 'no', text: 'no' }))
      .rejects.toMatchObject({ responseCode: 535 });
    transport.close();
    expect(await herald.services.store.sendRequests.countDocuments({ account: account.account })).toBe(before);
  });
});

describe('SMTP limits at the door', () => {
  it('refuses a message over 10MB with 552 and stores nothing', async () => {
    const before = await herald.services.store.sendRequests.countDocuments({ account: account.account });
    const transport = client(account.transactionalKey);
    await expect(transport.sendMail({ from: 'app@example.com', to: 'big@example.net', subject: 'big', text: 'x'.repeat(11 * 1024 * 1024) }))
      .rejects.toMatchObject({ responseCode: 552 });
    transport.close();
    expect(await herald.services.store.sendRequests.countDocuments({ account: account.account })).toBe(before);
  });

  it('takes at most 1000 recipients per message (452 for the rest)', async () => {
    const transport = client(account.transactionalKey);
    const to = Array.from({ length: 1001 }, (_, i) => `r${i}@example.net`);
    // Suppressed, so the accepted message is dropped for each of them rather than relayed a
    // thousand times: sending is other tests' business, and it took most of this file's CPU.
    await suppressMany(herald.services.store, to.map((email) => ({ account: account.account, email, reason: 'manual' as const })));
    const info = await transport.sendMail({ from: 'app@example.com', to, subject: 'many', text: 'hi' });
    transport.close();
    expect(info.accepted).toHaveLength(1000);
    expect(info.rejected).toEqual(['r1000@example.net']);
    const doc = await herald.services.store.sendRequests.findOne({ account: account.account, payload: { $regex: 'r999@example.net' } });
    expect(JSON.parse(doc!.payload).rcptTo).toHaveLength(1000);
  });
});
