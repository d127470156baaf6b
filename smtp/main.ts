// The SMTP listener as its own process (production): `node dist/smtp/main.js`.
import { loadConfig } from '../composition/config';
import { composeHerald } from '../composition/herald';
import { listen, onShutdownSignal } from '../composition/process';
import { createLogger } from '../adapters/logger';
import { withStackAddresses } from '../infra/stack-record';

async function main() {
  const config = withStackAddresses(loadConfig());
  const herald = composeHerald(config, { logger: createLogger(config.logLevel, 'herald-smtp') });
  await listen((await herald.smtpServer()).server, config.smtpPort, config.bindHost, 'SMTP');
  herald.logger.info({ port: config.smtpPort, host: config.bindHost }, 'SMTP listening');
  onShutdownSignal(() => herald.close());
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
