// Runs Herald (API + worker, optionally the SMTP listener) in the test process against the
// suite's real Temporal and store, with its own database and a recording SMTP sink.
import type { AddressInfo } from 'node:net';
import { createApiServer } from '../../api/app';
import { createAccount, type NewAccount } from '../../core/accounts/accounts';
import { loadConfig } from '../../composition/config';
import { createLogger } from '../../adapters/logger';
import { newId } from '../../core/shared/ids';
import { connectServices, type Services } from '../../composition/services';
import type { WebhookTuning } from '../../core/webhooks/delivery-pass';
import type { CampaignTuning } from '../../adapters/temporal/contracts';
import { removeWebhookSweeper } from '../../core/webhooks/lifecycle';
import { createSmtpServer } from '../../smtp/server';
import { createHeraldWorker } from '../../worker';
import { installTestTemporalRuntime } from './temporal-logs';
import { startSmtpSink, type SinkOptions } from './smtp-sink';

export interface TestHerald {
  baseUrl: string;
  smtpPort: number;
  services: Services;
  sink: Awaited<ReturnType<typeof startSmtpSink>>;
  newAccount(name?: string): Promise<NewAccount>;
  stop(): Promise<void>;
}

/**
 * `options` shape the relay (test/support/smtp-sink.ts): the object itself is the sink's, so a
 * test may change its lists and flags while Herald runs. `relayAuth`: the worker logs in to it.
 * `webhookTuning`: batching and polling of webhook delivery. Webhook URLs on 127.0.0.1 are allowed
 * (HERALD_WEBHOOK_ALLOW_PRIVATE=1) unless the environment says otherwise. `campaignTuning`: page
 * size and deferral retries of campaign launches.
 */
export async function startTestHerald(
  options: SinkOptions & { relayAuth?: boolean; webhookTuning?: Partial<WebhookTuning>; campaignTuning?: Partial<CampaignTuning> } = {},
): Promise<TestHerald> {
  installQuietRuntime();
  const database = `herald_test_${newId().slice(0, 10)}`;
  // Own database and task queue: test files run in parallel against one Temporal and store.
  const config = loadConfig({
    ...process.env, HERALD_MONGODB_DATABASE: database, HERALD_TASK_QUEUE: database, HERALD_LOG_LEVEL: 'silent',
    HERALD_WEBHOOK_ALLOW_PRIVATE: process.env.HERALD_WEBHOOK_ALLOW_PRIVATE ?? '1',
  });
  const logger = createLogger('silent');
  const mongodbUri = process.env.MONGODB_URI!;
  const temporalAddress = process.env.TEMPORAL_ADDRESS!;
  const services = await connectServices(config, { mongodbUri: withoutDatabase(mongodbUri), temporalAddress });
  const sink = await startSmtpSink(options);
  const { worker, close } = await createHeraldWorker({
    store: services.store, temporalAddress, namespace: config.temporalNamespace, taskQueue: config.taskQueue, relayUrl: options.relayAuth ? sink.url.replace('smtp://', 'smtp://relay:secret@') : sink.url, mtaHost: 'herald.test', publicUrl: config.publicUrl,
    bounceDomain: config.bounceDomain, webhookAllowPrivate: config.webhookAllowPrivate, webhookTuning: options.webhookTuning,
    campaignTuning: options.campaignTuning,
  });
  const running = worker.run();
  const api = createApiServer({ ...services, namespace: config.temporalNamespace, logger, webhookAllowPrivate: config.webhookAllowPrivate });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const smtp = createSmtpServer({ ...services, logger }, { bounceDomain: config.bounceDomain });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  let accounts = 0;
  return {
    baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    smtpPort: (smtp.server.address() as AddressInfo).port,
    services,
    sink,
    newAccount: (name) => createAccount(services.store, name ?? `acct${(accounts += 1)}${newId().slice(0, 6)}`),
    async stop() {
      await new Promise((resolve) => api.close(resolve));
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      worker.shutdown();
      await running;
      await close();
      await removeWebhookSweeper(services.temporal, config.taskQueue).catch(() => undefined); // this test's queue has no worker any more
      await services.store.db.dropDatabase().catch(() => undefined);
      await services.close();
      await sink.close();
    },
  };
}

/** Each test file gets its own database, so the URI's own database name is dropped. */
function withoutDatabase(uri: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)\/[^?]*/, '$1/');
}

let runtimeInstalled = false;
/** The SDK's runtime is installed once per process (each jest worker is one). */
function installQuietRuntime() {
  if (!runtimeInstalled) installTestTemporalRuntime();
  runtimeInstalled = true;
}
