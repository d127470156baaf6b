// An SMTP sink that only counts messages, run as a child process (`node dist/bench/counting-sink.js`)
// so that receiving mail does not share the event loop being measured. It talks to its parent
// over IPC: {ready, port} once listening; {waitFor: n} is answered with {reached: n} at the n-th message.
// Opt-in, for scenarios that tell streams apart or time each message: {track: prefix} counts the
// recipients whose address starts with the prefix on their own (waitFor and count then take the
// prefix), and with `times` keeps each such address's arrival time, which {arrivals: prefix} returns.
// {refuse: prefix} answers 550 to every recipient starting with it from then on (an address that
// does not exist: the message fails, and is not counted).
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { within } from './support';

type ToSink =
  | { waitFor: number; prefix?: string } | { count: true; prefix?: string }
  | { track: string; times: boolean } | { arrivals: string } | { clock: true } | { crash: true } | { refuse: string };
type FromSink =
  | { ready: true; port: number } | { reached: number; prefix?: string } | { count: number; prefix?: string } | { crashed: number }
  | { tracking: string } | { arrivals: Array<[string, number]>; prefix: string } | { clock: number } | { refusing: string };

/** Absolute milliseconds with sub-millisecond precision, comparable between processes and threads of one machine. */
export const absoluteNow = () => performance.timeOrigin + performance.now();

/** A tracked prefix's recipients: how many arrived, and with `times` when each address first did. */
interface Tracked { count: number; times?: Map<string, number> }

function main(): void {
  let count = 0;
  /** After a crash (`{crash: true}`): nothing more is taken, and what it took stays readable. */
  let crashed = false;
  const sockets = new Set<Socket>();
  const tracked = new Map<string, Tracked>();
  const refused: string[] = [];
  const waiting: Array<{ n: number; prefix?: string }> = [];
  const countOf = (prefix?: string) => (prefix === undefined ? count : tracked.get(prefix)?.count ?? 0);
  const report = () => {
    for (let i = waiting.length - 1; i >= 0; i -= 1) {
      const { n, prefix } = waiting[i];
      if (countOf(prefix) >= n) { waiting.splice(i, 1); process.send?.({ reached: n, prefix }); }
    }
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo({ address }, _session, callback) {
      if (refused.some((prefix) => address.startsWith(prefix))) callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      stream.on('end', () => {
        if (crashed) return;
        // At the relay = the whole message in hand (end of DATA), before the reply.
        const at = absoluteNow();
        count += 1;
        for (const { address } of session.envelope.rcptTo) {
          for (const [prefix, t] of tracked) {
            if (!address.startsWith(prefix)) continue;
            t.count += 1;
            if (t.times && !t.times.has(address)) t.times.set(address, at);
          }
        }
        report();
        callback();
      });
      stream.resume(); // discard the content: counting is all this sink does
    },
  });
  process.on('message', (message: ToSink) => {
    if ('waitFor' in message) { waiting.push({ n: message.waitFor, prefix: message.prefix }); report(); }
    else if ('count' in message) process.send?.({ count: countOf(message.prefix), prefix: message.prefix });
    else if ('track' in message) {
      tracked.set(message.track, { count: 0, ...(message.times ? { times: new Map() } : {}) });
      process.send?.({ tracking: message.track });
    } else if ('arrivals' in message) process.send?.({ arrivals: [...(tracked.get(message.arrivals)?.times ?? [])], prefix: message.arrivals });
    else if ('crash' in message) {
      // As a relay that died: every connection cut at once, nothing listening; no answer to what was in flight.
      crashed = true;
      server.server.close();
      for (const socket of sockets) socket.destroy();
      process.send?.({ crashed: absoluteNow() });
    } else if ('refuse' in message) {
      refused.push(message.refuse);
      process.send?.({ refusing: message.refuse });
    } else process.send?.({ clock: absoluteNow() });
  });
  // The parent going away (crash, Ctrl-C) must not leave the sink running.
  process.on('disconnect', () => process.exit(0));
  server.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // A sender killed mid-session resets its connection: that session's loss, not the sink's.
  server.on('error', () => undefined);
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ ready: true, port: (server.server.address() as AddressInfo).port });
  });
}

export interface CountingSink {
  url: string;
  /** Its process (for its CPU). */
  pid: number;
  /**
   * Resolves at the moment (performance.now()) the sink reports its n-th message, or with `prefix`
   * its n-th recipient under that tracked prefix; rejects after timeoutMs.
   */
  waitFor(n: number, timeoutMs: number, prefix?: string): Promise<number>;
  /** Messages so far, or recipients under a tracked prefix. */
  count(prefix?: string): Promise<number>;
  /** From now on, count the recipients starting with `prefix` on their own; with `times`, keep each one's arrival (absoluteNow() in the sink). */
  track(prefix: string, options?: { times?: boolean }): Promise<void>;
  /** Each tracked address's first arrival (absolute ms), for a prefix tracked with `times`. */
  arrivals(prefix: string): Promise<Map<string, number>>;
  /** The sink's clock minus this thread's (absoluteNow()), from the quickest of a few round trips: near 0 when the times compare. */
  clockOffsetMs(): Promise<number>;
  /** Dies as a relay does (its connections cut, its port closed) but still answers: resolves with the moment (sink's clock). */
  crash(): Promise<number>;
  /** From now on, refuses (550) every recipient whose address starts with `prefix`. */
  refuse(prefix: string): Promise<void>;
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
  const ask = <T extends FromSink>(message: ToSink, match: (m: FromSink) => m is T, what: string) => {
    const answer = next(match);
    child.send(message);
    return within(answer, 5_000, `counting sink ${what}`);
  };
  const ready = await within(next((m): m is { ready: true; port: number } => 'ready' in m), 15_000, 'counting sink start')
    .catch(async (error) => { child.kill('SIGKILL'); throw error; });
  return {
    url: `smtp://127.0.0.1:${ready.port}`,
    pid: child.pid!,
    async waitFor(n, timeoutMs, prefix) {
      const reached = next((m): m is { reached: number } => 'reached' in m && m.reached === n && m.prefix === prefix);
      child.send({ waitFor: n, prefix } satisfies ToSink);
      await within(reached, timeoutMs, `counting sink waiting for ${n} ${prefix === undefined ? 'messages' : `recipients ${prefix}…`}`);
      return performance.now();
    },
    async count(prefix) {
      return (await ask({ count: true, prefix }, (m): m is { count: number } => 'count' in m && m.prefix === prefix, 'count')).count;
    },
    async track(prefix, options = {}) {
      await ask({ track: prefix, times: options.times ?? false }, (m): m is { tracking: string } => 'tracking' in m && m.tracking === prefix, 'track');
    },
    async arrivals(prefix) {
      const answer = await ask({ arrivals: prefix }, (m): m is { arrivals: Array<[string, number]>; prefix: string } => 'arrivals' in m && m.prefix === prefix, 'arrivals');
      return new Map(answer.arrivals);
    },
    async clockOffsetMs() {
      let best = { roundTrip: Infinity, offset: NaN };
      for (let i = 0; i < 5; i += 1) {
        const sent = absoluteNow();
        const { clock } = await ask({ clock: true }, (m): m is { clock: number } => 'clock' in m, 'clock');
        const back = absoluteNow();
        if (back - sent < best.roundTrip) best = { roundTrip: back - sent, offset: clock - (sent + back) / 2 };
      }
      return best.offset;
    },
    async crash() {
      return (await ask({ crash: true }, (m): m is { crashed: number } => 'crashed' in m, 'crash')).crashed;
    },
    async refuse(prefix) {
      await ask({ refuse: prefix }, (m): m is { refusing: string } => 'refusing' in m && m.refusing === prefix, 'refuse');
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await within(exited, 5_000, 'counting sink exit').catch(() => child.kill('SIGKILL'));
    },
  };
}

if (require.main === module) main();
