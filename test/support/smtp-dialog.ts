// A bare SMTP client for tests that need each step of a session: a command, then its reply
// (multi-line replies joined), so a test can stop between AUTH and MAIL, send a partial DATA, or
// watch a reply arrive on its own (a 421 at shutdown).
import net from 'node:net';

export interface SmtpReply { code: number; text: string }

export interface SmtpDialog {
  /** The next complete reply from the server (the greeting first). */
  reply(timeoutMs?: number): Promise<SmtpReply>;
  /** Sends a command line (CRLF added) and waits for its reply. */
  command(line: string): Promise<SmtpReply>;
  /** Writes bytes as they are, waiting for nothing. */
  write(data: string | Buffer): void;
  /** AUTH PLAIN with the username apikey. */
  login(key: string): Promise<SmtpReply>;
  /** Resolves when the server closes the connection. */
  closed: Promise<void>;
  end(): void;
}

/** `localAddress`: another loopback address (127.0.0.2, …) to connect from, as a second client would. */
export async function openDialog(port: number, localAddress?: string): Promise<SmtpDialog> {
  const socket = net.connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buffer = '';
  const replies: SmtpReply[] = [];
  const waiting: Array<(reply: SmtpReply) => void> = [];
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined); // a reset after the server closed shows as `closed`
  socket.on('data', (chunk) => {
    buffer += chunk.toString('utf8');
    let lines: string[] = [];
    for (let at = buffer.indexOf('\r\n'); at >= 0; at = buffer.indexOf('\r\n')) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      lines.push(line);
      if (line[3] !== '-') {
        const reply = { code: Number(line.slice(0, 3)), text: lines.map((l) => l.slice(4)).join('\n') };
        lines = [];
        const next = waiting.shift();
        if (next) next(reply);
        else replies.push(reply);
      }
    }
  });
  const reply = (timeoutMs = 15_000) => new Promise<SmtpReply>((resolve, reject) => {
    const ready = replies.shift();
    if (ready) return resolve(ready);
    const timer = setTimeout(() => reject(new Error(`no SMTP reply within ${timeoutMs} ms`)), timeoutMs);
    waiting.push((r) => { clearTimeout(timer); resolve(r); });
  });
  const command = (line: string) => { socket.write(`${line}\r\n`); return reply(); };
  return {
    reply,
    command,
    write: (data) => { socket.write(data); },
    login: (key) => command(`AUTH PLAIN ${Buffer.from(`\0apikey\0${key}`).toString('base64')}`),
    closed,
    end: () => socket.end(),
  };
}
