// The worker as its own process (production): `node dist/worker.js`. It sends through
// SMTP_RELAY_URL (or the mail sink of a running `npm start` of the same data folder).
import { createLogger, type Logger } from './adapters/logger';
import { serveMetrics, type MetricsServer } from './adapters/metrics/server';
import { quietTemporalRuntime } from './adapters/temporal/runtime';
import { loadConfig, type Config } from './composition/config';
import { composeHerald } from './composition/herald';
import { withStackAddresses } from './infra/stack-record';

async function main() {
  const config = withStackAddresses(loadConfig());
  const logger = createLogger(config.logLevel, 'herald-worker');
  if (!config.smtpRelayUrl && !config.relays) throw new Error('Neither SMTP_RELAY_URL nor HERALD_RELAYS_FILE is set: the worker needs a relay to send through.');
  quietTemporalRuntime();
  const herald = composeHerald(config, { logger });
  const worker = await herald.worker();
  const metricsServer = await startWorkerMetrics(config, logger);
  logger.info({ taskQueue: config.taskQueue }, 'worker started');
  await worker.run(); // returns after SIGINT/SIGTERM (the SDK handles both)
  await metricsServer?.close();
  await herald.close();
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

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
