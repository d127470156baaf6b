// The running parts of a test Herald: a recording SMTP sink, then Herald's API, SMTP listener and
// worker (built by the composition root, as npm start builds it) on the suite's store and
// Temporal, with a database and task queue of their own. A test file's own stack
// (test/support/herald.ts) and a jest worker's shared one (./worker-stack.ts) both start here.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { loadConfig, type Config } from '../../composition/config';
import { composeHerald, type Herald } from '../../composition/herald';
import type { HttpsGet } from '../../adapters/http/https-get';
import { createLogger, type Logger } from '../../adapters/logger';
import type { FeedbackSettings } from '../../core/bounces/feedback-settings';
import type { Store } from '../../adapters/store/store';
import type { WebhookTuning } from '../../core/webhooks/delivery-pass';
import type { CampaignTuning } from '../../adapters/temporal/contracts';
import type { DrainTuning } from '../../core/transactional/drain';
import { bounceMailboxSweeper, removeSweeper, sweepersOf } from '../../adapters/temporal/schedules';
import { installTestTemporalRuntime } from './temporal-logs';
import { startSmtpSink, type SinkOptions } from './smtp-sink';
import { dropDatabase, suiteMongodbUri } from './suite';

/**
 * `options` shape the relay (test/support/smtp-sink.ts): the object itself is the sink's, so a
 * test may change its lists and flags while Herald runs. `relayAuth`: the worker logs in to it.
 * `webhookTuning`: batching and polling of webhook delivery. Webhook URLs on 127.0.0.1 are allowed
 * (HERALD_WEBHOOK_ALLOW_PRIVATE=1) unless the environment says otherwise. `campaignTuning`: page
 * size and deferral retries of campaign launches. `drainTuning`: paging and idling of the send queues' drains.
 * `feedback`: the providers' webhook secrets, as the relays file's `feedback` gives them (the sink
 * stays the one relay); `httpsGet`: the API's outgoing HTTPS GET (SNS certificates), answered by the test.
 * `bounceMailboxCa`: the CA of the bounce mailbox's IMAP server (a relays file names the mailbox).
 * `logger`: Herald's logger (silent by default). `env`: settings over the test's.
 */
export type StackOptions = SinkOptions & {
  relayAuth?: boolean; webhookTuning?: Partial<WebhookTuning>; campaignTuning?: Partial<CampaignTuning>; drainTuning?: Partial<DrainTuning>;
  /** A relays file (written to a temporary file, HERALD_RELAYS_FILE) instead of SMTP_RELAY_URL; the test's sink is one relay it may name. */
  relaysFile?: (sinkUrl: string) => object;
  feedback?: FeedbackSettings; httpsGet?: HttpsGet; bounceMailboxCa?: Buffer; logger?: Logger;
  /** Settings over the test's (HERALD_PUBLIC_URL…; a value `''` unsets one). */
  env?: Record<string, string>;
  /** false: no worker (the API and SMTP only), for a test of core code on history it writes itself, which a worker's sweeps would act on. */
  worker?: boolean;
};

export type Sink = Awaited<ReturnType<typeof startSmtpSink>>;

export interface RunningStack {
  baseUrl: string;
  smtpPort: number;
  database: string;
  config: Config;
  herald: Herald;
  store: Store;
  temporal: Client;
  sink: Sink;
  /** Ends the stack: its schedules, Herald, its database and the sink. */
  stop(): Promise<void>;
}

export async function startStack(database: string, options: StackOptions = {}): Promise<RunningStack> {
  installTestTemporalRuntime();
  const sink = await startSmtpSink(options);
  const relays = options.relaysFile ? { HERALD_RELAYS_FILE: writeTemporaryFile(`${database}-relays.json`, JSON.stringify(options.relaysFile(sink.url))) } : undefined;
  // Own database and task queue: stacks run side by side against one Temporal and store.
  const loaded = loadConfig({
    ...process.env, MONGODB_URI: suiteMongodbUri(), HERALD_MONGODB_DATABASE: database, HERALD_TASK_QUEUE: database, HERALD_LOG_LEVEL: 'silent',
    HERALD_MTA_HOST: 'herald.test',
    ...(relays ?? { SMTP_RELAY_URL: options.relayAuth ? sink.url.replace('smtp://', 'smtp://relay:secret@') : sink.url }),
    HERALD_WEBHOOK_ALLOW_PRIVATE: process.env.HERALD_WEBHOOK_ALLOW_PRIVATE ?? '1',
    ...options.env,
  });
  // As a relays file would give them; the relay itself is still SMTP_RELAY_URL's sink.
  const config = options.feedback ? { ...loaded, relays: { relays: [{ name: 'sink', url: loaded.smtpRelayUrl! }], feedback: options.feedback } } : loaded;
  const herald = composeHerald(config, {
    logger: options.logger ?? createLogger('silent'), bounceMailboxTls: options.bounceMailboxCa && { ca: options.bounceMailboxCa }, webhookTuning: options.webhookTuning, campaignTuning: options.campaignTuning, httpsGet: options.httpsGet,
    // A drain stops 1 s after its queue emptied (5 s in production): a test waiting for it to go idle waits less.
    drainTuning: { idleMs: 1000, ...options.drainTuning },
  });
  const [store, temporal] = await Promise.all([herald.store(), herald.temporal()]);
  if (options.worker !== false) void (await herald.worker()).run();
  const api = await herald.apiServer();
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const smtp = await herald.smtpServer();
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    smtpPort: (smtp.server.address() as AddressInfo).port,
    database,
    config,
    herald,
    store,
    temporal,
    sink,
    async stop() {
      // This stack's queue has no worker after this.
      for (const { scheduleId } of [...sweepersOf(config.taskQueue), bounceMailboxSweeper(config.taskQueue)]) await removeSweeper(temporal, scheduleId).catch(() => undefined);
      await herald.close();
      await dropDatabase(database);
      await sink.close();
    },
  };
}

/** A file in the system's temporary folder with this text; its path. */
function writeTemporaryFile(name: string, text: string): string {
  const file = path.join(os.tmpdir(), name);
  fs.writeFileSync(file, text);
  return file;
}
