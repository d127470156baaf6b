// (m) How fast the SMTP listener answers AUTH, which the refusals test leaves to this benchmark:
// a login with the right key, an address's first failed logins (free: answered at once), and a
// failure past the free ones (held one step of the default throttle). Each AUTH on a connection
// of its own, timed from the command to its reply; beside a store round trip (ping) in the same run.
import net from 'node:net';
import { createAccount } from '../core/accounts/accounts';
import { DEFAULT_AUTH_THROTTLE } from '../smtp/auth-throttle';
import { composeBenchHerald, startBenchStack } from './herald-stack';
import { percentile, round } from './stats';
import { log, Teardown } from './support';

const LOGINS = 200;
/** Addresses (127.0.0.2 …) each failing once: first failures, never held. */
const FIRST_FAILURES = 50;

export async function runSmtpAuth(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const stack = await startBenchStack('smtp-auth', teardown);
    // The SMTP listener as the composition root builds it (the default AUTH throttle).
    const herald = composeBenchHerald(stack, teardown, { HERALD_MONGODB_DATABASE: 'herald_bench_auth' });
    const store = await herald.store();
    const { transactionalKey } = await createAccount(store, 'authbench');
    const server = await herald.smtpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as net.AddressInfo).port;
    const wrong = `authbench-tr-${'x'.repeat(32)}`;

    const pings: number[] = [];
    for (let i = 0; i < LOGINS; i += 1) {
      const started = performance.now();
      await store.db.command({ ping: 1 });
      pings.push(performance.now() - started);
    }
    log(`smtp-auth: ${LOGINS} logins with the right key, ${FIRST_FAILURES} first failures, one held failure`);
    await timedAuth(port, transactionalKey); // warm-up: the key cache and the first connection
    const ok: number[] = [];
    for (let i = 0; i < LOGINS; i += 1) ok.push(expectCode(await timedAuth(port, transactionalKey), 235));
    const firsts: number[] = [];
    for (let i = 0; i < FIRST_FAILURES; i += 1) firsts.push(expectCode(await timedAuth(port, wrong, `127.0.0.${i + 2}`), 535));
    const from = '127.0.1.1';
    for (let i = 0; i < DEFAULT_AUTH_THROTTLE.freeFailures; i += 1) expectCode(await timedAuth(port, wrong, from), 535);
    const held = expectCode(await timedAuth(port, wrong, from), 535);
    return {
      scenario: 'smtp-auth',
      auth_ok_p50_ms: round(percentile(ok, 50), 2),
      auth_ok_p99_ms: round(percentile(ok, 99), 2),
      first_failure_p50_ms: round(percentile(firsts, 50), 2),
      first_failure_p99_ms: round(percentile(firsts, 99), 2),
      held_failure_ms: round(held),
      hold_step_ms: DEFAULT_AUTH_THROTTLE.delayStepMs,
      store_ping_p50_ms: round(percentile(pings, 50), 2),
      notes: `each AUTH PLAIN on a new connection after EHLO, timed from the command to its reply; ${LOGINS} with the right key, ` +
        `the first failure of ${FIRST_FAILURES} addresses (127.0.0.x), then a failure past the ${DEFAULT_AUTH_THROTTLE.freeFailures} free ones ` +
        'of one address (held by the default throttle); store_ping = a ping round trip to the embedded store',
    };
  } finally {
    await teardown.run();
  }
}

function expectCode(result: { code: number; ms: number }, code: number): number {
  if (result.code !== code) throw new Error(`AUTH answered ${result.code}, not ${code}`);
  return result.ms;
}

/** Connects (from `localAddress`), says EHLO, and times AUTH PLAIN with the username apikey. */
async function timedAuth(port: number, key: string, localAddress?: string): Promise<{ code: number; ms: number }> {
  const socket = net.connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
  let buffer = '';
  const waiting: Array<(code: number) => void> = [];
  socket.on('data', (chunk) => {
    buffer += chunk.toString('utf8');
    for (let at = buffer.indexOf('\r\n'); at >= 0; at = buffer.indexOf('\r\n')) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      if (line[3] !== '-') waiting.shift()?.(Number(line.slice(0, 3)));
    }
  });
  const reply = () => new Promise<number>((resolve) => waiting.push(resolve));
  try {
    const greeting = reply();
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    await greeting;
    socket.write('EHLO bench.test\r\n');
    await reply();
    const answered = reply();
    const started = performance.now();
    socket.write(`AUTH PLAIN ${Buffer.from(`\0apikey\0${key}`).toString('base64')}\r\n`);
    const code = await answered;
    return { code, ms: performance.now() - started };
  } finally {
    socket.destroy();
  }
}
