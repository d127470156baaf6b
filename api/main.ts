// The API as its own process (production): `node dist/api/main.js`.
import { loadConfig } from '../composition/config';
import { createLogger } from '../adapters/logger';
import { connectServices, listen, onShutdownSignal } from '../composition/services';
import { resolveServiceAddresses } from '../infra/stack-record';
import { createApiServer } from './app';

async function main() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'herald-api');
  const services = await connectServices(config, resolveServiceAddresses(config));
  const server = createApiServer({ ...services, namespace: config.temporalNamespace, logger, webhookAllowPrivate: config.webhookAllowPrivate });
  await listen(server, config.apiPort, config.bindHost, 'API');
  logger.info({ url: `http://${config.bindHost}:${config.apiPort}` }, 'API listening');
  onShutdownSignal(async () => {
    await new Promise((resolve) => server.close(resolve));
    await services.close();
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
