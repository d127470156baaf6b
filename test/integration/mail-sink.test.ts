import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { startMailSink, MailSink } from '../../infra/mail-sink';

interface MaildevEmail {
  id: string;
  subject: string;
  text?: string;
  from: { address: string }[];
  to: { address: string }[];
}

async function listEmails(webUrl: string): Promise<MaildevEmail[]> {
  const res = await fetch(`${webUrl}/email`);
  expect(res.status).toBe(200);
  return (await res.json()) as MaildevEmail[];
}

/** maildev parses and stores a message (or reloads it from disk) a moment after accepting it. */
async function waitForEmail(webUrl: string, subject: string, timeoutMs = 10000): Promise<MaildevEmail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await listEmails(webUrl)).find((m) => m.subject === subject);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no message "${subject}" in maildev after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('mail sink (maildev)', () => {
  let tmp: string;
  let sink: MailSink | undefined;

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-mail-sink-'));
  });

  afterAll(async () => {
    await sink?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('catches what is sent over SMTP, shows it on its REST API and keeps it across a restart', async () => {
    const dir = path.join(tmp, 'mail');
    const logFile = path.join(tmp, 'maildev.log');
    sink = await startMailSink({ dir, logFile });
    expect(sink.smtpUrl).toBe(`smtp://127.0.0.1:${sink.smtpPort}`);
    expect(sink.webUrl).toBe(`http://127.0.0.1:${sink.webPort}`);

    const transport = nodemailer.createTransport(sink.smtpUrl);
    try {
      const info = await transport.sendMail({
        from: 'sender@example.test',
        to: 'reader@example.test',
        subject: 'Hello from Herald',
        text: 'caught by the sink',
      });
      expect(info.accepted).toEqual(['reader@example.test']);
    } finally {
      transport.close();
    }

    const mail = await waitForEmail(sink.webUrl, 'Hello from Herald');
    expect(mail.from[0].address).toBe('sender@example.test');
    expect(mail.to[0].address).toBe('reader@example.test');
    expect(mail.text?.trim()).toBe('caught by the sink');
    expect(fs.existsSync(path.join(dir, `${mail.id}.eml`))).toBe(true);

    await sink.stop();
    sink = await startMailSink({ dir, logFile });
    const reloaded = await waitForEmail(sink.webUrl, 'Hello from Herald');
    expect(reloaded.id).toBe(mail.id);
  });
});
