// The relay the soak's Herald sends to: a real SMTP server that takes every message at once and
// remembers, per recipient and subject, each copy's Message-ID and arrival time. The whole
// message is kept (and parsed) only for the recipients the tracking load will click through.
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Copy { messageId: string; at: number }

export interface KeptMessage {
  to: string;
  subject: string;
  html: string;
  /** When it arrived. */
  at: number;
  /** The one-click unsubscribe URL of List-Unsubscribe. */
  listUnsubscribe?: string;
}

export interface SoakSink {
  url: string;
  /** Copies per `<recipient>|<subject>`. */
  copies: Map<string, Copy[]>;
  /** Distinct recipients per subject. */
  bySubject: Map<string, number>;
  /** Every message taken (one per recipient). */
  total(): number;
  /** Messages kept for tracking that arrived at least `ageMs` ago, each handed out once. */
  takeKept(ageMs: number): KeptMessage[];
  close(): Promise<void>;
}

export const copyKey = (to: string, subject: string) => `${to.toLowerCase()}|${subject}`;

const HEADER_END = '\r\n\r\n';

/** The value of a header in a raw header block (folded lines joined). */
function headerOf(head: string, name: string): string {
  const match = new RegExp(`^${name}:[ \\t]*(.*(?:\\r\\n[ \\t].*)*)`, 'im').exec(head);
  return match ? match[1].replace(/\r\n[ \t]+/g, ' ').trim() : '';
}

export async function startSoakSink(keep: (to: string) => boolean): Promise<SoakSink> {
  const copies = new Map<string, Copy[]>();
  const bySubject = new Map<string, number>();
  let kept: KeptMessage[] = [];
  let total = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 30 * 1024 * 1024,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let head: string | undefined;
      const recipients = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
      const keepAll = recipients.some(keep);
      stream.on('data', (chunk: Buffer) => {
        if (head !== undefined && !keepAll) return;
        chunks.push(chunk);
        if (head === undefined) {
          const text = Buffer.concat(chunks).toString('latin1');
          const end = text.indexOf(HEADER_END);
          if (end >= 0) head = text.slice(0, end);
        }
      });
      stream.on('end', () => {
        const at = Date.now();
        const headers = head ?? Buffer.concat(chunks).toString('latin1');
        const messageId = headerOf(headers, 'Message-ID');
        const subject = headerOf(headers, 'Subject');
        for (const to of recipients) {
          total += 1;
          const key = copyKey(to, subject);
          const list = copies.get(key);
          if (list) list.push({ messageId, at });
          else {
            copies.set(key, [{ messageId, at }]);
            bySubject.set(subject, (bySubject.get(subject) ?? 0) + 1);
          }
        }
        callback();
        if (keepAll) {
          const listUnsubscribe = /<(https?:[^>]+)>/.exec(headerOf(headers, 'List-Unsubscribe'))?.[1];
          void simpleParser(Buffer.concat(chunks)).then((parsed) => {
            const html = typeof parsed.html === 'string' ? parsed.html : '';
            for (const to of recipients.filter(keep)) kept.push({ to, subject, html, at, listUnsubscribe });
          }, () => undefined);
        }
      });
    },
  });
  // A sender killed mid-session resets its connection: that session's loss, not the sink's (unhandled, it ended the soak).
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    copies,
    bySubject,
    total: () => total,
    takeKept(ageMs) {
      const before = Date.now() - ageMs;
      const out = kept.filter((m) => m.at <= before);
      kept = kept.filter((m) => m.at > before);
      return out;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
