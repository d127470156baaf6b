// The delivery guarantee under a crash: a worker process SIGKILLed in the middle of a
// 1000-recipient request, and a new one started at once. Every recipient gets the message,
// duplicates are at most the messages in flight at the kill, each with the Message-ID of the first
// copy (the one in the ledger), and sending resumes within 15 s (the activity's heartbeat timeout
// is 10 s). The API runs in this process; the worker is `node dist/worker.js` (built by npm test).
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SEND_CONCURRENCY } from '../../activities/sending';
import { createApp } from '../../api/app';
import { createAccount } from '../../core/accounts';
import { loadConfig } from '../../core/config';
import { newId } from '../../core/ids';
import { createLogger } from '../../core/logger';
import { connectServices, type Services } from '../../core/services';
import { startSmtpSink } from '../support/smtp-sink';

const root = path.resolve(__dirname, '../..');
const RECIPIENTS = 1000;
const workers: ChildProcess[] = [];
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let services: Services;
let api: http.Server;
let workerEnv: NodeJS.ProcessEnv;

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, [path.join(root, 'dist/worker.js')], { env: workerEnv, cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (chunk) => { errors = (errors + chunk).slice(-4000); });
  child.once('exit', (code, signal) => { if (code) console.error(`worker exited ${code ?? signal}: ${errors}`); });
  workers.push(child);
  return child;
}

const withoutDatabase = (uri: string) => uri.replace(/\/[^/?]*(\?|$)/, '/$1');

beforeAll(async () => {
  // A slow relay (each message acknowledged 20 ms after its data), so the kill lands mid-request.
  sink = await startSmtpSink({ delayMs: 20 });
  const database = `herald_kill_${newId().slice(0, 8)}`;
  const mongodbUri = withoutDatabase(process.env.MONGODB_URI!);
  workerEnv = {
    PATH: process.env.PATH, NODE_ENV: 'production', MONGODB_URI: mongodbUri, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    SMTP_RELAY_URL: sink.url, HERALD_MONGODB_DATABASE: database, HERALD_TASK_QUEUE: database, HERALD_MTA_HOST: 'mx.herald.test', HERALD_LOG_LEVEL: 'warn', HERALD_WORKER_METRICS_PORT: '0',
  };
  const config = loadConfig({ ...workerEnv, HERALD_LOG_LEVEL: 'silent' });
  services = await connectServices(config, { mongodbUri, temporalAddress: process.env.TEMPORAL_ADDRESS! });
  api = http.createServer(createApp({ ...services, namespace: config.temporalNamespace, logger: createLogger('silent') }).callback());
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
}, 60000);

afterAll(async () => {
  // The new worker stops cleanly (SIGTERM: the SDK lets it finish) before the sink closes.
  await Promise.all(workers.filter((child) => child.exitCode === null && child.signalCode === null).map((child) => new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  })));
  await new Promise((resolve) => api?.close(resolve));
  await services?.store.db.dropDatabase().catch(() => undefined);
  await services?.close();
  await sink?.close();
});

/** Waits until `done`, calling `refresh` (if given) before each look. */
async function until(what: string, done: () => boolean, timeoutMs: number, refresh?: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await refresh?.();
    if (done()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('loses nothing, duplicates at most what was in flight, and resumes within 15 s when the worker is killed mid-request', async () => {
  const account = await createAccount(services.store, `kill${newId().slice(0, 6).toLowerCase().replace(/[^a-z0-9]/g, '')}`);
  const first = startWorker();
  const emails = Array.from({ length: RECIPIENTS }, (_, i) => `r${i}@example.net`);
  const response = await fetch(`http://127.0.0.1:${(api.address() as AddressInfo).port}/v1/mail/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.transactionalKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      from: { email: 'shop@example.com' }, subject: 'Your order ${n}', content: { html: '<p>Order ${n}</p>', text: 'Order ${n}' },
      recipients: emails.map((email, n) => ({ to: { email }, substitutions: { n } })),
    }),
  });
  expect(response.status).toBe(202);

  await until('a third of the messages', () => sink.received.length >= RECIPIENTS / 3, 90000);
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  const atKill = sink.received.length;
  expect(atKill).toBeLessThan(RECIPIENTS); // the kill landed mid-request

  const restartedAt = Date.now();
  startWorker();
  await until('sending to resume', () => sink.received.length > atKill, 60000);
  const resumedAfterMs = Date.now() - restartedAt;
  const delivered = new Set<string>();
  await until('every recipient', () => {
    for (const mail of sink.received) delivered.add(mail.rcptTo[0]);
    return delivered.size === RECIPIENTS;
  }, 120000);

  // Every recipient got the message; the duplicates are at most the messages in flight.
  const copies = new Map<string, string[]>();
  for (const mail of sink.received) copies.set(mail.rcptTo[0], [...(copies.get(mail.rcptTo[0]) ?? []), mail.parsed.messageId!]);
  expect(copies.size).toBe(RECIPIENTS);
  const duplicated = [...copies.entries()].filter(([, ids]) => ids.length > 1);
  expect(duplicated.length).toBeLessThanOrEqual(SEND_CONCURRENCY);
  expect(duplicated.every(([, ids]) => ids.length === 2)).toBe(true);

  // One ledger row per recipient, sent, with the Message-ID of every copy; one sent event each.
  // (The sink records a message before it acknowledges it: the last rows land just after.)
  let rowCount = 0;
  await until('every ledger row', () => rowCount === RECIPIENTS, 30000, async () => {
    rowCount = await services.store.messages.countDocuments({ account: account.account });
  });
  const rows = await services.store.messages.find({ account: account.account }).toArray();
  expect(rows.length).toBe(RECIPIENTS);
  expect(rows.every((row) => row.status === 'sent')).toBe(true);
  for (const row of rows) expect(new Set(copies.get(row.email))).toEqual(new Set([row.messageId]));
  const sentEvents = await services.store.events.find({ account: account.account, track_type: 'track.mail.sent' }).toArray();
  expect(sentEvents.length).toBe(RECIPIENTS);
  expect(new Set(sentEvents.map((e) => e.mail_id)).size).toBe(RECIPIENTS);

  expect(resumedAfterMs).toBeLessThan(15000);
  console.log(JSON.stringify({ atKill, duplicates: duplicated.length, resumedAfterMs, total: sink.received.length }));
}, 180000);
