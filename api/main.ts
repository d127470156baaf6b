// The API as its own process (production): `node dist/api/main.js`.
import { loadConfig } from '../composition/config';
import { composeHerald } from '../composition/herald';
import { listen, onShutdownSignal } from '../composition/process';
import { createLogger } from '../adapters/logger';
import { withStackAddresses } from '../infra/stack-record';

async function main() {
  const config = withStackAddresses(loadConfig());
  const herald = composeHerald(config, { logger: createLogger(config.logLevel, 'herald-api') });
  await listen(await herald.apiServer(), config.apiPort, config.bindHost, 'API');
  herald.logger.info({ url: `http://${config.bindHost}:${config.apiPort}` }, 'API listening');
  onShutdownSignal(() => herald.close());
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
