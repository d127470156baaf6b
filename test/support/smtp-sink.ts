import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedMail { mailFrom: string; rcptTo: string[]; raw: Buffer; parsed: ParsedMail; /** performance.now() at its arrival. */ at: number }

export interface SinkOptions {
  /** Answered 550 at RCPT TO (a permanent refusal). */
  rejectRecipients?: string[];
  /** Answered 450 at RCPT TO while listed (a temporary refusal); the array may change during a test. */
  deferRecipients?: string[];
  /** Every AUTH fails with 535 (a relay whose credentials are wrong). */
  refuseAuth?: boolean;
  /** Each message is acknowledged this long after its data arrived (a slow relay). */
  delayMs?: number;
  /** While true, MAIL FROM is answered 421 and the session closed (a relay shutting down, or throttling). */
  answer421?: boolean;
  /** While set, a session is dropped (its socket destroyed, no answer) at its message after this many received in all. */
  dropAfter?: number;
}

/** A real SMTP server that records what it receives, for tests. */
export async function startSmtpSink(initialOptions: SinkOptions = {}) {
  let options = initialOptions;
  const received: ReceivedMail[] = [];
  /** Each recipient answered 450, in order (one entry per deferral). */
  const deferred: string[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(_auth, _session, callback) {
      if (options.refuseAuth) return callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
      callback(null, { user: 'relay-user' });
    },
    onMailFrom(_address, _session, callback) {
      if (options.answer421) return callback(Object.assign(new Error('4.3.2 Service shutting down, closing transmission channel'), { responseCode: 421 }));
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (options.rejectRecipients?.includes(address.address)) {
        return callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      }
      if (options.deferRecipients?.includes(address.address)) {
        deferred.push(address.address);
        return callback(Object.assign(new Error('4.2.2 Mailbox full, try later'), { responseCode: 450 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      if (options.dropAfter !== undefined && received.length >= options.dropAfter) {
        stream.resume();
        sockets.get(session.remotePort)?.destroy(); // the relay dies mid-session: no answer to the message
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const at = performance.now();
        const raw = Buffer.concat(chunks);
        received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw,
          parsed: await simpleParser(raw),
          at,
        });
        waiters.splice(0).forEach((wake) => wake());
        if (options.delayMs) setTimeout(() => callback(), options.delayMs);
        else callback();
      });
    },
  });
  // A client that dies mid-session (a killed worker) resets its connection: the sink carries on.
  server.on('error', () => undefined);
  /** The sessions' sockets by the client's port (what the session says of its connection). */
  const sockets = new Map<number, Socket>();
  let mostOpenAtOnce = 0;
  server.server.on('connection', (socket: Socket) => {
    const port = socket.remotePort!;
    sockets.set(port, socket);
    mostOpenAtOnce = Math.max(mostOpenAtOnce, sockets.size);
    socket.once('close', () => sockets.delete(port));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    deferred,
    /** The most connections that were open at once. */
    get mostOpenAtOnce() { return mostOpenAtOnce; },
    /** Resolves once `count` messages arrived in all, or rejects after timeoutMs. */
    async waitFor(count: number, timeoutMs = 30000): Promise<ReceivedMail[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`SMTP sink: expected ${count} messages, got ${received.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => { clearTimeout(timer); resolve(); });
        });
      }
      return received.slice(0, count);
    },
    /**
     * The sink as new for another test file (a jest worker's shared stack): nothing received or
     * deferred, and `next` as its options (the very object, which the file may change).
     */
    reset(next: SinkOptions) {
      options = next;
      received.length = 0;
      deferred.length = 0;
      mostOpenAtOnce = sockets.size;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    /** Stops at once, as a crashed relay does: its connections are cut, and nothing listens on its port. */
    kill: () => new Promise<void>((resolve) => {
      server.server.close(() => resolve());
      for (const socket of sockets.values()) socket.destroy();
    }),
  };
}
