import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Worker, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { createActivities } from './activities';
import { loadConfig, type Config } from './composition/config';
import { createLogger, type Logger } from './adapters/logger';
import { serveMetrics, type MetricsServer } from './adapters/metrics/server';
import { connectStore, type Store } from './adapters/store/store';
import { createThreadedRelay } from './adapters/relay/thread';
import type { WebhookTuning } from './core/webhooks/delivery-pass';
import type { CampaignTuning } from './adapters/temporal/contracts';
import { ensureWebhookSweeper } from './core/webhooks/lifecycle';
import { resolveServiceAddresses } from './infra/stack-record';

export interface WorkerDeps {
  store: Store;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  relayUrl: string;
  mtaHost: string;
  /** Where tracking and unsubscribe links in sent mail point (HERALD_PUBLIC_URL). */
  publicUrl: string;
  /** The domain of each message's return path (HERALD_BOUNCE_DOMAIN); bounces.<mtaHost> when not given. */
  bounceDomain?: string;
  /** HERALD_WEBHOOK_ALLOW_PRIVATE: webhook requests may go to private and loopback addresses. */
  webhookAllowPrivate?: boolean;
  /** Batching and polling of webhook delivery; the defaults suit production (tests and benchmarks change them). */
  webhookTuning?: Partial<WebhookTuning>;
  /** Page size and deferral retries of campaign launches; the defaults suit production (tests change them). */
  campaignTuning?: Partial<CampaignTuning>;
}

/** The Docker image names its prebuilt bundle here; otherwise workflows are bundled at start. */
const PREBUILT_BUNDLE = process.env.HERALD_WORKFLOW_BUNDLE;

/** Creates the Temporal worker with every workflow and activity; call run() on the result. */
export async function createHeraldWorker(deps: WorkerDeps): Promise<{ worker: Worker; close(): Promise<void> }> {
  const connection = await NativeConnection.connect({ address: deps.temporalAddress });
  const transport = createThreadedRelay(deps.relayUrl);
  const worker = await Worker.create({
    connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    ...(PREBUILT_BUNDLE
      ? { workflowBundle: { codePath: PREBUILT_BUNDLE } }
      : { workflowsPath: require.resolve('./workflows') }),
    activities: createActivities({
      store: deps.store, transport, mtaHost: deps.mtaHost, publicUrl: deps.publicUrl, bounceDomain: deps.bounceDomain,
      webhookAllowPrivate: deps.webhookAllowPrivate, webhookTuning: deps.webhookTuning, campaignTuning: deps.campaignTuning,
    }),
  });
  // The webhook sweeper's schedule, created by whichever worker starts first (idempotent).
  await ensureWebhookSweeper(new Client({ connection, namespace: deps.namespace }), deps.taskQueue);
  return {
    worker,
    async close() {
      await transport.close();
      await connection.close();
    },
  };
}

/**
 * Keeps the SDK's own logs (and its native core's, forwarded) at warn level, as JSON lines on
 * stderr: stdout stays for our own output (JSON logs, the start banner, benchmark results).
 */
export function quietTemporalRuntime(): void {
  const toStderr = (entry: { level: string; message: string; meta?: object }) =>
    process.stderr.write(`${JSON.stringify({ name: 'temporal', level: entry.level.toLowerCase(), msg: entry.message, ...entry.meta })}\n`);
  Runtime.install({
    logger: new DefaultLogger('WARN', toStderr),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
  });
}

async function main() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'herald-worker');
  const addresses = resolveServiceAddresses(config);
  if (!addresses.smtpRelayUrl) throw new Error('SMTP_RELAY_URL is not set: the worker needs a relay to send through.');
  quietTemporalRuntime();
  const store = await connectStore(addresses.mongodbUri, config.mongodbDatabase);
  const { worker, close } = await createHeraldWorker({
    store, temporalAddress: addresses.temporalAddress, namespace: config.temporalNamespace, taskQueue: config.taskQueue,
    relayUrl: addresses.smtpRelayUrl, mtaHost: config.mtaHost, publicUrl: config.publicUrl, bounceDomain: config.bounceDomain,
    webhookAllowPrivate: config.webhookAllowPrivate,
  });
  const metricsServer = await startWorkerMetrics(config, logger);
  logger.info({ taskQueue: config.taskQueue }, 'worker started');
  await worker.run(); // returns after SIGINT/SIGTERM (the SDK handles both)
  await metricsServer?.close();
  await close();
  await store.close();
  logger.info('worker stopped');
}

/**
 * GET /metrics on HERALD_WORKER_METRICS_PORT (0: none). A port that cannot be bound is logged as
 * an error and the worker runs on: sending matters more than its figures.
 */
async function startWorkerMetrics(config: Config, logger: Logger): Promise<MetricsServer | undefined> {
  if (config.workerMetricsPort === 0) return undefined;
  try {
    const server = await serveMetrics({ port: config.workerMetricsPort, host: config.bindHost, token: config.metricsToken });
    logger.info({ port: server.port, host: config.bindHost }, 'worker metrics at /metrics');
    return server;
  } catch (error) {
    logger.error({ err: error, port: config.workerMetricsPort }, 'worker metrics could not listen; the worker runs without them');
    return undefined;
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
