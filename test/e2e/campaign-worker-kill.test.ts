// The delivery guarantee of a campaign under a crash: the worker process SIGKILLed in the middle
// of a 1000-contact campaign, and a new one started at once. Every contact gets the message,
// duplicates are at most the messages in flight at the kill (one page at a time, SEND_CONCURRENCY
// messages of it at once), each with the Message-ID of its ledger row, and the campaign ends SENT
// with its task FINISHED. The API runs in this process (the campaign is launched over HTTP); the
// worker is `node dist/worker.js` (built by npm test).
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SEND_CONCURRENCY } from '../../activities/message-sender';
import { createApp } from '../../api/app';
import { createAccount } from '../../core/accounts';
import { campaignRequestId } from '../../core/campaigns/model';
import { loadConfig } from '../../core/config';
import { newId } from '../../core/ids';
import { createLogger } from '../../core/logger';
import { connectServices, type Services } from '../../core/services';
import { addContacts, addLists, campaignApi, draftCampaign, waitForCampaign, waitForTask } from '../support/campaigns';
import { startSmtpSink } from '../support/smtp-sink';

const root = path.resolve(__dirname, '../..');
const CONTACTS = 1000;
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
  // A slow relay (each message acknowledged 20 ms after its data), so the kill lands mid-campaign.
  sink = await startSmtpSink({ delayMs: 20 });
  const database = `herald_ckill_${newId().slice(0, 8)}`;
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
  await Promise.all(workers.filter((child) => child.exitCode === null && child.signalCode === null).map((child) => new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  })));
  await new Promise((resolve) => api?.close(resolve));
  await services?.store.db.dropDatabase().catch(() => undefined);
  await services?.close();
  await sink?.close();
});

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await done()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('sends every contact the campaign, duplicates at most what was in flight, when the worker is killed mid-campaign', async () => {
  const { store } = services;
  const { account, apiKey } = await createAccount(store, `ckill${newId().slice(0, 6).toLowerCase().replace(/[^a-z0-9]/g, '')}`);
  await addLists(store, account, [1]);
  const emails = Array.from({ length: CONTACTS }, (_, i) => `c${i}@example.net`);
  await addContacts(store, account, emails.map((email, i) => ({ email, firstName: `C${i}`, lists: [1] })));
  const campaign = await draftCampaign(store, account, { name: 'Kill', include: { lists: [1] } });

  const first = startWorker();
  const task = await campaignApi(`http://127.0.0.1:${(api.address() as AddressInfo).port}`, account, apiKey).launch(campaign);
  await until('a third of the messages', () => sink.received.length >= CONTACTS / 3, 90000);
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  const atKill = sink.received.length;
  expect(atKill).toBeLessThan(CONTACTS); // the kill landed mid-campaign

  const restartedAt = Date.now();
  startWorker();
  await until('sending to resume', () => sink.received.length > atKill, 60000);
  const resumedAfterMs = Date.now() - restartedAt;
  const sent = await waitForCampaign(store, campaign, ['SENT'], 120000);
  expect(sent.recipients).toBe(CONTACTS);
  const finished = await waitForTask(store, account, task.id, ['FINISHED'], 30000);
  expect(finished.result).toMatchObject({ recipients: CONTACTS, sent: CONTACTS, failed: 0, dropped: 0 });

  // Every contact got the message; the duplicates are at most the messages in flight, each a copy of the same message.
  await until('every contact', () => new Set(sink.received.map((mail) => mail.rcptTo[0])).size === CONTACTS, 30000);
  const copies = new Map<string, string[]>();
  for (const mail of sink.received) copies.set(mail.rcptTo[0], [...(copies.get(mail.rcptTo[0]) ?? []), mail.parsed.messageId!]);
  expect([...copies.keys()].sort()).toEqual([...emails].sort());
  const duplicated = [...copies.entries()].filter(([, ids]) => ids.length > 1);
  expect(duplicated.length).toBeLessThanOrEqual(SEND_CONCURRENCY);
  expect(duplicated.every(([, ids]) => ids.length === 2 && ids[0] === ids[1])).toBe(true);

  // One ledger row per contact, sent, with the Message-ID of every copy; one sent event each.
  const rows = await store.messages.find({ account, requestId: campaignRequestId(campaign.id) }).toArray();
  expect(rows).toHaveLength(CONTACTS);
  expect(rows.every((row) => row.status === 'sent')).toBe(true);
  for (const row of rows) expect(new Set(copies.get(row.email))).toEqual(new Set([row.messageId]));
  const sentEvents = await store.events.countDocuments({ account, track_type: 'track.mail.sent', mail_type: 'campaign' });
  expect(sentEvents).toBe(CONTACTS);

  console.log(JSON.stringify({ contacts: CONTACTS, atKill, duplicates: duplicated.length, resumedAfterMs, total: sink.received.length }));
}, 240000);
