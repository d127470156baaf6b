// The relay transport (adapters/relay/transport.ts) delivers byte for byte what pooled nodemailer's
// sendMail({envelope, raw, dkim}) delivered, to a real SMTP server on 127.0.0.1: plain and DKIM
// signed, whatever the message's line ends and dots. And the nodemailer it relies on is the one
// adapters/relay/data-connection.ts was written against.
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import { createRelayTransport, type RelayMessage } from '../../adapters/relay/transport';
import { startSmtpSink } from '../support/smtp-sink';

let sink: Awaited<ReturnType<typeof startSmtpSink>>;
beforeAll(async () => { sink = await startSmtpSink(); });
afterAll(() => sink.close());

const MESSAGES = [
  'From: a@example.com\r\nTo: b@example.net\r\nSubject: CRLF\r\n\r\n<p>Hello</p>\r\n',
  'From: a@example.com\r\nSubject: dots\r\n\r\n.leading\r\n..two\r\n.\r\nend',
  'From: a@example.com\nSubject: bare LF\n\n<html>\n.dot\n</html>\n',
  'From: a@example.com\r\nSubject: bare CR\r\n\r\nline\rnext\r.dot\r',
  'From: a@example.com\r\nSubject: no body line end\r\n\r\nlast',
];
const privateKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const dkim = { domainName: 'example.com', keySelector: 'test', privateKey };

/** Each message sent in turn by `send`; what the server received of each. */
async function delivered(send: (message: RelayMessage) => Promise<unknown>, withDkim: boolean): Promise<string[]> {
  const from = sink.received.length;
  for (const [i, text] of MESSAGES.entries()) {
    const to = `to${i}@example.net`;
    const route = { stream: 'campaign' as const, account: 'acme', sender: 'a@example.com', recipient: to };
    await send({ envelope: { from: 'bounce@example.com', to: [to] }, raw: Buffer.from(text, 'latin1'), route, ...(withDkim ? { dkim } : {}) });
  }
  return sink.received.slice(from).map((m) => `${m.mailFrom} ${m.rcptTo.join(',')}\n${m.raw.toString('latin1')}`);
}

it.each([false, true])('delivers what pooled nodemailer delivered (DKIM %s)', async (withDkim) => {
  const url = new URL(sink.url);
  const pooled = nodemailer.createTransport({ pool: true, maxConnections: 5, maxMessages: Infinity, host: url.hostname, port: Number(url.port) });
  const relay = createRelayTransport(sink.url);
  try {
    const expected = await delivered((message) => pooled.sendMail(message), withDkim);
    const actual = await delivered((message) => relay.sendMail(message), withDkim);
    expect(actual).toEqual(expected);
    if (withDkim) expect(actual.every((m) => m.includes('\nDKIM-Signature: '))).toBe(true);
  } finally {
    pooled.close();
    await relay.close();
  }
});

it('relies on nodemailer 10.6 (adapters/relay/data-connection.ts reaches into its SMTPConnection: check it again before raising this)', () => {
  expect((require('nodemailer/package.json') as { version: string }).version).toMatch(/^10\.6\./);
});
