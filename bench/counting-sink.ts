// An SMTP sink that only counts messages, run as a child process (`node dist/bench/counting-sink.js`)
// so that receiving mail does not share the event loop being measured. It talks to its parent
// over IPC: {ready, port} once listening; {waitFor: n} is answered with {reached: n} at the n-th message.
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { within } from './support';

type ToSink = { waitFor: number } | { count: true };
type FromSink = { ready: true; port: number } | { reached: number } | { count: number };

function main(): void {
  let count = 0;
  const waiting = new Set<number>();
  const report = () => {
    for (const n of waiting) if (count >= n) { waiting.delete(n); process.send?.({ reached: n }); }
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('end', () => { count += 1; report(); callback(); });
      stream.resume(); // discard the content: counting is all this sink does
    },
  });
  process.on('message', (message: ToSink) => {
    if ('waitFor' in message) { waiting.add(message.waitFor); report(); } else process.send?.({ count });
  });
  // The parent going away (crash, Ctrl-C) must not leave the sink running.
  process.on('disconnect', () => process.exit(0));
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ ready: true, port: (server.server.address() as AddressInfo).port });
  });
}

export interface CountingSink {
  url: string;
  /** Its process (for its CPU). */
  pid: number;
  /** Resolves at the moment (performance.now()) the sink reports its n-th message; rejects after timeoutMs. */
  waitFor(n: number, timeoutMs: number): Promise<number>;
  count(): Promise<number>;
  stop(): Promise<void>;
}

/** Forks the sink and waits until it listens. */
export async function startCountingSink(): Promise<CountingSink> {
  const child: ChildProcess = fork(__filename, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = <T extends FromSink>(match: (m: FromSink) => m is T) => new Promise<T>((resolve) => {
    const on = (m: FromSink) => { if (match(m)) { child.off('message', on); resolve(m); } };
    child.on('message', on);
  });
  const ready = await within(next((m): m is { ready: true; port: number } => 'ready' in m), 15_000, 'counting sink start')
    .catch(async (error) => { child.kill('SIGKILL'); throw error; });
  return {
    url: `smtp://127.0.0.1:${ready.port}`,
    pid: child.pid!,
    async waitFor(n, timeoutMs) {
      const reached = next((m): m is { reached: number } => 'reached' in m && m.reached === n);
      child.send({ waitFor: n } satisfies ToSink);
      await within(reached, timeoutMs, `counting sink waiting for ${n} messages`);
      return performance.now();
    },
    async count() {
      const answer = next((m): m is { count: number } => 'count' in m);
      child.send({ count: true } satisfies ToSink);
      return (await within(answer, 5_000, 'counting sink count')).count;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await within(exited, 5_000, 'counting sink exit').catch(() => child.kill('SIGKILL'));
    },
  };
}

if (require.main === module) main();
