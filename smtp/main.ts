// The SMTP listener as its own process (production): `node dist/smtp/main.js`.
import { loadConfig } from '../composition/config';
import { createLogger } from '../adapters/logger';
import { connectServices, listen, onShutdownSignal } from '../composition/services';
import { resolveServiceAddresses } from '../infra/stack-record';
import { smtpOptionsFrom } from './options';
import { createSmtpServer } from './server';

async function main() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'herald-smtp');
  const services = await connectServices(config, resolveServiceAddresses(config));
  const server = createSmtpServer({ ...services, logger }, smtpOptionsFrom(config));
  await listen(server.server, config.smtpPort, config.bindHost, 'SMTP');
  logger.info({ port: config.smtpPort, host: config.bindHost }, 'SMTP listening');
  onShutdownSignal(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await services.close();
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
