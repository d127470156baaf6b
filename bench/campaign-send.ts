// (d) A 100,000-contact campaign end to end: contacts inserted straight into the store (one list),
// a ~15 KB HTML body with a first_name substitution and ~60 tracked links, launched as the API
// launches it (core/campaigns/lifecycle.ts: the task and its CampaignLaunch workflow), sent by
// Herald's worker running as a process of its own (`node dist/worker.js`, as in a deployment) to
// a counting sink. Figures: recipients/s from the launch to the sink's last message, the time to
// the first message (the audience snapshot comes first), and the worker's peak RSS (VmHWM of its
// process). Reference of the same run: pooled nodemailer sending prebuilt raw MIME of the very
// messages Herald sends (built beforehand by the campaign's own plan) to the same sink.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { WORKER_NODE_FLAGS } from '../composition/node-flags';
import { freePort } from '../infra/ports';
import { createAccount } from '../core/accounts/accounts';
import { createCampaign } from '../core/campaigns/campaigns';
import { createContent, setHtmlBody } from '../core/campaigns/content-record';
import { launchCampaign } from '../core/campaigns/lifecycle';
import { planCampaign } from '../core/campaigns/plan';
import { createList } from '../core/contacts/lists';
import type { CampaignDoc, CampaignRecipient, ContactDoc, Store } from '../adapters/store/store';
import { linkTablesOf } from '../core/content/tracking/link-tables';
import { trackingSecret } from '../core/content/tracking/secret';
import { processCpuMs } from './cpu-usage';
import { composeBenchHerald, startBenchStack, type BenchStack } from './herald-stack';
import { recipientOf } from './mail';
import { measureRawSends } from './nodemailer-raw';
import { perSecond, round } from './stats';
import { log, within, Teardown } from './support';

export const CONTACTS = Number(process.env.HERALD_BENCH_CAMPAIGN_CONTACTS ?? 100_000);
/** How the worker runs (HERALD_BENCH_WORKER_ENTRY): `worker` (default, node dist/worker.js) or `start` (inside node dist/start.js, as npm start runs it). */
const ENTRY = process.env.HERALD_BENCH_WORKER_ENTRY === 'start' ? 'start' : 'worker';
/** Worker processes on the task queue (HERALD_BENCH_WORKERS; one by default). */
const WORKERS = Math.max(1, Number(process.env.HERALD_BENCH_WORKERS ?? 1));
export const WARM_UP_CONTACTS = 2_000;
/** The reference sends this many (distinct prebuilt messages, sent in turn). */
const REFERENCE_SENDS = 20_000;
const REFERENCE_DISTINCT = 2_000;
export const DATABASE = 'herald_bench_campaign';
/** The worker process's task queue: campaigns and, in transactional-latency, single sends alike. */
export const TASK_QUEUE = 'herald-bench-campaign';
export const MTA_HOST = 'herald.bench';
export const PUBLIC_URL = 'https://t.herald.bench';
const FROM = 'news@herald.test';
/** The content's fields besides its HTML (campaignHtml). */
export const CAMPAIGN_CONTENT = { subject: 'Weekly offers for ${contact.first_name!"you"}', from: FROM, fromName: 'Herald Bench' };

/** ~15 KB of table-layout HTML: a greeting with the contact's first name, 60 links (tracked by TRACK_LINKS). */
export function campaignHtml(): string {
  const rows: string[] = [];
  for (let r = 0; r < 60; r += 1) {
    rows.push('<tr><td style="padding:8px 12px;font-family:Arial,sans-serif;font-size:14px;color:#333">' +
      `Offer ${r}: this week only, on everything in aisle ${r}, while stocks last. <a href="https://shop.example.test/offers/${r}?ref=mail">See offer ${r}</a></td></tr>`);
  }
  return '<!doctype html><html><head><meta charset="utf-8"><title>Weekly offers</title></head>' +
    '<body><table width="600" cellpadding="0" cellspacing="0"><tr><td><h1>Hello ${contact.first_name!"friend"}</h1></td></tr>\n' +
    `${rows.join('\n')}</table></body></html>`;
}

/** `count` contacts in list `listId`, inserted in bulk, ids from `firstId`. */
export async function insertContacts(store: Store, account: string, listId: number, firstId: number, count: number, tag: string): Promise<void> {
  const now = new Date();
  for (let from = 0; from < count; from += 5000) {
    const batch: ContactDoc[] = [];
    for (let i = from; i < Math.min(from + 5000, count); i += 1) {
      const id = firstId + i;
      batch.push({
        _id: `${account}:${id}`, account, id, email: `${tag}${i}@example.test`, firstName: `First${i}`, lastName: `Last${i}`, gender: '', language: '',
        preferredFormat: 'HTML', source: 'IMPORTED_CSV', state: 'ACTIVE', quality: 0, lists: [listId], interests: [], customFields: {},
        created: now, lastModified: now, lastMailed: null, lastAction: null, inactivated: null,
      });
    }
    await store.contacts.insertMany(batch, { ordered: false });
  }
  await store.counters.updateOne({ _id: `${account}:contacts` }, { $max: { seq: firstId + count } }, { upsert: true });
}

export async function newCampaign(store: Store, account: string, listId: number, name: string): Promise<CampaignDoc> {
  const campaign = await createCampaign(store, account, { name, include: { lists: [listId] } });
  const content = await createContent(store, campaign, CAMPAIGN_CONTENT);
  await setHtmlBody(store, { ...campaign, content }, content, campaignHtml());
  return (await store.campaigns.findOne({ _id: campaign._id, account }))!;
}

const quietBundler = new DefaultLogger('WARN');

/** The workflow bundle built beforehand, as the Docker image has it: a worker bundling at start holds on to webpack's memory. */
export async function prebuiltBundle(teardown: Teardown): Promise<string> {
  const bundle = path.join(teardown.tempDir('herald-bench-bundle-'), 'workflow-bundle.js');
  fs.writeFileSync(bundle, (await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quietBundler })).code);
  return bundle;
}

/**
 * A worker as a process of its own (`node dist/worker.js`), or with ENTRY `start` the whole
 * service as `npm start` runs it (`node dist/start.js`: API, SMTP listener and worker in one
 * process, on the bench's store, Temporal and sink); resolves once it polls its task queue.
 */
/** `env`: Herald's settings over the bench's (`relays`: HERALD_RELAYS_FILE; a value `''` unsets one, such as SMTP_RELAY_URL). */
export async function startWorkerProcess(stack: BenchStack, teardown: Teardown, bundle: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  // HERALD_BENCH_CPU_PROF=<dir>: the worker writes a CPU profile there when it stops.
  const profile = process.env.HERALD_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HERALD_BENCH_CPU_PROF}`] : [];
  const whole = ENTRY === 'start';
  const service = whole ? {
    HERALD_DATA_DIR: teardown.tempDir('herald-bench-start-'), HERALD_API_PORT: String(await freePort()), HERALD_SMTP_PORT: String(await freePort()),
  } : {};
  const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, ...profile, path.join(__dirname, '..', whole ? 'start.js' : 'worker.js')], {
    env: {
      ...process.env, ...service, HERALD_WORKFLOW_BUNDLE: bundle,
      // HERALD_BENCH_WORKER_NODE_OPTIONS: other node flags of the worker alone (WORKER_NODE_FLAGS, on its command line, win over these).
      ...(process.env.HERALD_BENCH_WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.HERALD_BENCH_WORKER_NODE_OPTIONS } : {}), MONGODB_URI: stack.store.uri, TEMPORAL_ADDRESS: stack.temporal.address, SMTP_RELAY_URL: stack.sink.url,
      HERALD_MONGODB_DATABASE: DATABASE, HERALD_TASK_QUEUE: TASK_QUEUE, HERALD_MTA_HOST: MTA_HOST, HERALD_PUBLIC_URL: PUBLIC_URL,
      HERALD_LOG_LEVEL: 'info', HERALD_WORKER_METRICS_PORT: '0', ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  teardown.defer('worker process', async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await within(exited, 20_000, 'worker exit').catch(() => child.kill('SIGKILL'));
  });
  const started = new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4096);
      if (seen.includes(whole ? 'Herald is running' : 'worker started')) { child.stdout!.off('data', onData); child.stdout!.resume(); resolve(); }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it started`)));
  });
  await within(started, 120_000, 'worker start');
  return child;
}

/** The process's resident set now and at its peak (Linux /proc: VmRSS, VmHWM), in MB. */
function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: round(kb('VmRSS') / 1024), peakMb: round(kb('VmHWM') / 1024) };
}

/** CPU seconds (user + system, every thread) the process used so far (bench/cpu-usage.ts reads /proc). */
export function cpuSecondsOf(pid: number): number {
  return processCpuMs(pid) / 1000;
}

/** The reference's messages: the campaign's own, built by its plan for the first recipients. */
async function prebuiltMessages(store: Store, campaign: CampaignDoc): Promise<Buffer[]> {
  const fields = await store.fields.find({ account: campaign.account }).toArray();
  const plan = await planCampaign(campaign, fields, { mtaHost: MTA_HOST, links: { publicUrl: PUBLIC_URL, secret: await trackingSecret(store) }, linkTables: linkTablesOf(store) });
  return Array.from({ length: REFERENCE_DISTINCT }, (_, seq) => plan.message(snapshotRow(seq)).raw());
}

/** The campaign once SENT with its recipients' count (the last page's outcome comes after its last message), or as it is after a minute. */
export async function sentCampaign(store: Store, campaign: CampaignDoc): Promise<Pick<CampaignDoc, 'state' | 'recipients'> | null> {
  let final: Pick<CampaignDoc, 'state' | 'recipients'> | null = null;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
    final = await store.campaigns.findOne({ _id: campaign._id, account: campaign.account }, { projection: { state: 1, recipients: 1 } });
    if (final?.state === 'SENT') break;
  }
  return final;
}

/** Snapshot recipient `seq` as the bench's contacts make it (a first name each). */
export function snapshotRow(seq: number): CampaignRecipient {
  return { seq, contactId: seq + 1, email: recipientOf(seq), firstName: `First${seq}`, lastName: `Last${seq}`, gender: '', language: '', customFields: {} };
}

export async function runCampaignSend(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    // 100k contacts, their snapshot, ledger rows and events outgrow the memory backend's heap: the H2 file, as npm start runs it.
    // HERALD_BENCH_CAMPAIGN_STORE=memory: the memory backend (fine up to ~50k contacts) for a comparison.
    const storeFile = process.env.HERALD_BENCH_CAMPAIGN_STORE !== 'memory';
    const stack = await startBenchStack('campaign-send', teardown, { storeFile });
    const { sink } = stack;
    // The store and Temporal client of the launch; the worker is `node dist/worker.js` in its own process.
    const herald = composeBenchHerald(stack, teardown, { HERALD_MONGODB_DATABASE: DATABASE, HERALD_TASK_QUEUE: TASK_QUEUE });
    const [store, temporal] = await Promise.all([herald.store(), herald.temporal()]);
    const { account } = await createAccount(store, 'benchcampaign');
    const owner = { id: 1, username: 'bench' };
    const launchDeps = { store, temporal, taskQueue: TASK_QUEUE };

    log(`campaign-send: inserting ${CONTACTS} + ${WARM_UP_CONTACTS} contacts`);
    const warmList = await createList(store, account, { name: 'Warm-up' });
    const list = await createList(store, account, { name: 'Everyone' });
    await insertContacts(store, account, warmList.id, 1, WARM_UP_CONTACTS, 'warm');
    await insertContacts(store, account, list.id, WARM_UP_CONTACTS + 1, CONTACTS, 'person');
    const warmCampaign = await newCampaign(store, account, warmList.id, 'Warm-up');
    const campaign = await newCampaign(store, account, list.id, 'Weekly offers');

    log(`campaign-send: reference: ${REFERENCE_SENDS} prebuilt raw messages (${REFERENCE_DISTINCT} distinct, the campaign's own), pooled nodemailer`);
    const raws = await prebuiltMessages(store, campaign);
    const messageKb = round(raws.reduce((sum, raw) => sum + raw.length, 0) / raws.length / 1024);
    const reference = await measureRawSends(sink.url, raws, REFERENCE_SENDS, FROM);
    raws.length = 0;
    let received = await sink.count();

    log(`campaign-send: starting ${WORKERS} worker process${WORKERS > 1 ? 'es' : ''}`);
    const bundle = await prebuiltBundle(teardown);
    const workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorkerProcess(stack, teardown, bundle)));
    // With several workers: the largest process's memory, every process's CPU.
    const workersMemory = () => {
      const each = workers.map((worker) => memoryOf(worker.pid!));
      return { rssMb: Math.max(...each.map((m) => m.rssMb)), peakMb: Math.max(...each.map((m) => m.peakMb)) };
    };
    const workersCpu = () => workers.reduce((sum, worker) => sum + cpuSecondsOf(worker.pid!), 0);
    const atStart = workersMemory();
    let peakSampledMb = 0;
    let samples = 0;
    const sampler = setInterval(() => {
      try {
        const { rssMb } = workersMemory();
        peakSampledMb = Math.max(peakSampledMb, rssMb);
        if ((samples += 1) % 20 === 0) log(`campaign-send: worker RSS ${rssMb} MB (sink ${received} before this campaign)`);
      } catch { /* exited */ }
    }, 500);
    teardown.defer('memory sampler', () => clearInterval(sampler));

    log(`campaign-send: warm-up campaign (${WARM_UP_CONTACTS} recipients)`);
    await launchCampaign(launchDeps, warmCampaign, { owner, request: '/bench/warm-up', launchDate: null });
    await sink.waitFor(received + WARM_UP_CONTACTS, 300_000);
    received += WARM_UP_CONTACTS;
    const afterWarmUp = workersMemory();

    log(`campaign-send: the campaign (${CONTACTS} recipients)`);
    const cpuBefore = { worker: workersCpu(), store: cpuSecondsOf(stack.store.pid) };
    const launchedAt = performance.now();
    await launchCampaign(launchDeps, campaign, { owner, request: '/bench/launch', launchDate: null });
    const firstAt = await sink.waitFor(received + 1, 600_000);
    const lastAt = await sink.waitFor(received + CONTACTS, 1_800_000);
    const memory = workersMemory();
    const perMessage = (seconds: number) => round((seconds * 1000) / CONTACTS, 2);
    const cpu = { worker: perMessage(workersCpu() - cpuBefore.worker), store: perMessage(cpuSecondsOf(stack.store.pid) - cpuBefore.store) };
    clearInterval(sampler);
    const final = await sentCampaign(store, campaign);
    const recipientsPerS = perSecond(CONTACTS, lastAt - launchedAt);
    return {
      scenario: 'campaign-send',
      store: storeFile ? 'h2-file' : 'memory',
      workers: WORKERS,
      worker_entry: ENTRY === 'start' ? 'dist/start.js' : 'dist/worker.js',
      recipients: CONTACTS,
      recipients_per_s: recipientsPerS,
      sending_per_s: perSecond(CONTACTS - 1, lastAt - firstAt),
      first_message_after_s: round((firstAt - launchedAt) / 1000, 2),
      total_s: round((lastAt - launchedAt) / 1000, 1),
      worker_peak_rss_mb: memory.peakMb,
      worker_rss_at_start_mb: atStart.rssMb,
      worker_rss_after_warm_up_mb: afterWarmUp.rssMb,
      worker_rss_sampled_peak_mb: peakSampledMb,
      worker_cpu_ms_per_message: cpu.worker,
      store_cpu_ms_per_message: cpu.store,
      campaign_state: final?.state,
      campaign_recipients: final?.recipients,
      message_kb: messageKb,
      prebuilt_raw_messages_per_s: reference.messages_per_s,
      prebuilt_raw_errors: reference.errors,
      ratio_to_prebuilt_raw: round(recipientsPerS / reference.messages_per_s, 2),
      prebuilt_raw_cpu_ms_per_message: reference.cpu_ms_per_message,
      // Worker and store together, over what the reference process spends per message: the goal is ≤ 1.0.
      ratio_cpu_to_prebuilt_raw: round((cpu.worker + cpu.store) / reference.cpu_ms_per_message, 2),
      notes: `contacts inserted in bulk into one list; the content: ~15 KB HTML, \${contact.first_name} in the subject and body, 60 links, every option on ` +
        '(click tracking, utm parameters, header links, footer); the store on its H2 file (durable commits, as npm start runs it); launched with launchCampaign (task + CampaignLaunch workflow), worker = `node dist/worker.js` ' +
        `in its own process (default tuning), after a ${WARM_UP_CONTACTS}-recipient warm-up campaign; recipients_per_s = launch to the sink's last message; ` +
        'sending_per_s = first to last message; *_cpu_ms_per_message = CPU time (user + system, all threads) of the worker processes (summed) and the store process from launch to last message, per message; worker_peak_rss_mb = the largest worker process\'s VmHWM (whole run, warm-up included); ' +
        `reference = pooled nodemailer (5 connections, 50 in flight) sending ${REFERENCE_SENDS} prebuilt raw messages (${REFERENCE_DISTINCT} distinct, built ` +
        'by the campaign\'s own plan: the same bytes Herald sends) to the same counting sink, before the worker starts; ' +
        'ratio_cpu_to_prebuilt_raw = (worker + store CPU per message) / the reference process\'s own CPU per message (process.cpuUsage while it sends)',
    };
  } finally {
    await teardown.run();
  }
}
