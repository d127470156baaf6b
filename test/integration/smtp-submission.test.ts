import nodemailer from 'nodemailer';
import type { NewAccount } from '../../core/accounts';
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
