import type { Client } from '@temporalio/client';
import type { Config } from './config';
import { connectStore, type Store } from '../adapters/store/store';
import { connectTemporal } from '../adapters/temporal/client';

export interface Services {
  store: Store;
  temporal: Client;
  taskQueue: string;
  /** Config's temporalSearchAttributeLimit: the AccountSender workflows are started with it. */
  searchAttributeLimit: number;
  close(): Promise<void>;
}

/** The store and a Temporal client: what the API and the SMTP listener need. */
export async function connectServices(config: Config, addresses: { mongodbUri: string; temporalAddress: string }): Promise<Services> {
  const store = await connectStore(addresses.mongodbUri, config.mongodbDatabase);
  try {
    const temporal = await connectTemporal(addresses.temporalAddress, config.temporalNamespace);
    return {
      store,
      temporal,
      taskQueue: config.taskQueue,
      searchAttributeLimit: config.temporalSearchAttributeLimit,
      async close() {
        await temporal.connection.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Runs `stop` once on the first SIGINT or SIGTERM; a second signal exits at once. */
export function onShutdownSignal(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handle = (signal: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    stop(signal).then(
      () => process.exit(0),
      (error) => {
        console.error('shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}

/** Resolves once the server listens; rejects with a readable message when the port is taken. */
export function listen(server: { listen(port: number, host: string): unknown; once(event: string, fn: (...args: unknown[]) => void): unknown },
  port: number, host: string, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error) => {
      const code = (error as { code?: string }).code;
      reject(new Error(code === 'EADDRINUSE' ? `${what}: port ${port} on ${host} is already in use` : `${what}: ${String(error)}`));
    });
    server.once('listening', () => resolve());
    server.listen(port, host);
  });
}
