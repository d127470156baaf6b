// An SMTP sink for tests that send many messages: it keeps of each message only its envelope
// recipients and its Message-ID (read from the header block), so 100,000 messages cost neither a
// parse each nor their bytes in memory (test/support/smtp-sink.ts keeps and parses everything).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Envelope { rcptTo: string[]; messageId: string | undefined }

const HEADER_END = Buffer.from('\r\n\r\n');
/** Headers longer than this are not looked into (Herald's are ~1 KB). */
const MAX_HEADER_BYTES = 64 * 1024;

/** The Message-ID header's value (unfolded, trimmed) in a message's header block. */
export function messageIdIn(header: string): string | undefined {
  return /^message-id:[ \t]*((?:.*)(?:\r\n[ \t].*)*)/im.exec(header)?.[1].replace(/\r\n[ \t]+/g, ' ').trim();
}

export async function startEnvelopeSink() {
  const received: Envelope[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let header = Buffer.alloc(0);
      let done = false;
      stream.on('data', (chunk: Buffer) => {
        if (done) return;
        header = Buffer.concat([header, chunk]);
        done = header.indexOf(HEADER_END) >= 0 || header.length > MAX_HEADER_BYTES;
      });
      stream.on('end', () => {
        const end = header.indexOf(HEADER_END);
        received.push({ rcptTo: session.envelope.rcptTo.map((r) => r.address), messageId: messageIdIn(header.subarray(0, end < 0 ? header.length : end).toString('latin1')) });
        callback();
      });
    },
  });
  // A client that dies mid-session (a killed worker) resets its connection: the sink carries on.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
