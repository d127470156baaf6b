// Runs Herald (API + worker, optionally the SMTP listener) in the test process against the
// suite's real Temporal and store, with its own database and a recording SMTP sink. Built by the
// composition root, as npm start builds it.
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { createAccount, type NewAccount } from '../../core/accounts/accounts';
import { loadConfig } from '../../composition/config';
import { composeHerald, type Herald, type HeraldTuning } from '../../composition/herald';
import type { HttpsGet } from '../../adapters/http/https-get';
import { createLogger } from '../../adapters/logger';
import type { FeedbackSettings } from '../../core/bounces/feedback-settings';
import { newId } from '../../core/shared/ids';
import type { Store } from '../../adapters/store/store';
import type { WebhookTuning } from '../../core/webhooks/delivery-pass';
import type { CampaignTuning } from '../../adapters/temporal/contracts';
import type { DrainTuning } from '../../core/transactional/drain';
import { bounceMailboxSweeper, removeSweeper, sweepersOf } from '../../adapters/temporal/schedules';
import type { Logger } from '../../adapters/logger';
import { installTestTemporalRuntime } from './temporal-logs';
import { startSmtpSink, type SinkOptions } from './smtp-sink';

/** The parts a test reaches into: the store, the Temporal client and the task queue. */
export interface TestServices { store: Store; temporal: Client; taskQueue: string }

export interface TestHerald {
  baseUrl: string;
  smtpPort: number;
  services: TestServices;
  herald: Herald;
  sink: Awaited<ReturnType<typeof startSmtpSink>>;
  newAccount(name?: string): Promise<NewAccount>;
  stop(): Promise<void>;
}

/** The suite's store (global setup), without its database: each test file gets its own. */
export function suiteMongodbUri(): string {
  return process.env.MONGODB_URI!.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)\/[^?]*/, '$1/');
}

/**
 * Another Herald on the suite's store and Temporal, from the test environment and `env`
 * (a second API on a test's database, another metrics token, a Temporal where nothing listens).
 */
export function composeTestHerald(env: Record<string, string>, tuning: HeraldTuning = {}): Herald {
  const config = loadConfig({ ...process.env, MONGODB_URI: suiteMongodbUri(), HERALD_LOG_LEVEL: 'silent', ...env });
  return composeHerald(config, { logger: createLogger('silent'), ...tuning });
}

/** Listens on a free loopback port; resolves to the base URL. */
export async function listenLocally(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

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
export async function startTestHerald(
  options: SinkOptions & {
    relayAuth?: boolean; webhookTuning?: Partial<WebhookTuning>; campaignTuning?: Partial<CampaignTuning>; drainTuning?: Partial<DrainTuning>;
    /** A relays file (written to a temporary file, HERALD_RELAYS_FILE) instead of SMTP_RELAY_URL; the test's sink is one relay it may name. */
    relaysFile?: (sinkUrl: string) => object;
    feedback?: FeedbackSettings; httpsGet?: HttpsGet; bounceMailboxCa?: Buffer; logger?: Logger;
    /** Settings over the test's (HERALD_PUBLIC_URL…; a value `''` unsets one). */
    env?: Record<string, string>;
  } = {},
): Promise<TestHerald> {
  installQuietRuntime();
  const database = `herald_test_${newId().slice(0, 10)}`;
  const sink = await startSmtpSink(options);
  const relays = options.relaysFile ? { HERALD_RELAYS_FILE: writeTemporaryFile(`${database}-relays.json`, JSON.stringify(options.relaysFile(sink.url))) } : undefined;
  // Own database and task queue: test files run in parallel against one Temporal and store.
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
  void (await herald.worker()).run();
  const api = await herald.apiServer();
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const smtp = await herald.smtpServer();
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  let accounts = 0;
  return {
    baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    smtpPort: (smtp.server.address() as AddressInfo).port,
    services: { store, temporal, taskQueue: config.taskQueue },
    herald,
    sink,
    newAccount: (name) => createAccount(store, name ?? `acct${(accounts += 1)}${newId().slice(0, 6)}`),
    async stop() {
      // This test's queue has no worker after this.
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

/** Drops a test's database once everything that wrote to it has stopped. */
export async function dropDatabase(database: string): Promise<void> {
  const client = await MongoClient.connect(suiteMongodbUri());
  try {
    await client.db(database).dropDatabase();
  } finally {
    await client.close();
  }
}

let runtimeInstalled = false;
/** The SDK's runtime is installed once per process (each jest worker is one). */
function installQuietRuntime() {
  if (!runtimeInstalled) installTestTemporalRuntime();
  runtimeInstalled = true;
}
