// The HTTP API or the SMTP listener on a thread of its own, for benchmarks that load them. In
// production each is a process of its own and its clients are elsewhere; run in the benchmark's
// own thread, the load generator would share the listener's event loop and its figure would
// include the client's work. Its store client is its own too, as a separate process's would be.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Client, Connection } from '@temporalio/client';
import { createApiServer } from '../api/app';
import { createSmtpServer } from '../smtp/server';
import { createLogger } from '../adapters/logger';
import { connectStore } from '../adapters/store/store';
import { connectTemporal } from '../adapters/temporal/client';
import type { Teardown } from './support';

const ROLE = 'herald-bench-api';

/** Where the API's sends go; without it, only the account API works (a Temporal client that is never used). */
export interface ApiTemporal { address: string; namespace: string; taskQueue: string; searchAttributeLimit: number }

interface Start { role: typeof ROLE; listener: 'api' | 'smtp'; uri: string; database: string; temporal?: ApiTemporal }

/** Starts the API on its own thread against the store at `uri`; resolves to its base URL. */
export async function startApiThread(uri: string, database: string, teardown: Teardown, temporal?: ApiTemporal): Promise<string> {
  return `http://127.0.0.1:${await startListenerThread({ role: ROLE, listener: 'api', uri, database, temporal }, teardown)}`;
}

/** Starts the SMTP listener on its own thread against the store at `uri`; resolves to its port. */
export async function startSmtpThread(uri: string, database: string, teardown: Teardown, temporal: ApiTemporal): Promise<number> {
  return startListenerThread({ role: ROLE, listener: 'smtp', uri, database, temporal }, teardown);
}

async function startListenerThread(start: Start, teardown: Teardown): Promise<number> {
  const worker = new Worker(__filename, { workerData: start });
  teardown.defer(`${start.listener} thread`, async () => {
    const exited = once(worker, 'exit');
    worker.postMessage('stop');
    await exited;
  });
  const [ready] = await Promise.race([once(worker, 'message'), once(worker, 'error').then(([error]) => { throw error; })]) as [{ port?: number; error?: string }];
  if (!ready.port) throw new Error(`the ${start.listener} thread did not start: ${ready.error}`);
  return ready.port;
}

/** The thread's side: serve until told to stop, then close the server and the store client. */
async function serve({ listener, uri, database, temporal: sends }: Start): Promise<void> {
  const store = await connectStore(uri, database);
  const temporal = sends
    ? await connectTemporal(sends.address, sends.namespace)
    : new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }); // lazy: never connects when unused
  const deps = {
    store, temporal, taskQueue: sends?.taskQueue ?? 'unused', searchAttributeLimit: sends?.searchAttributeLimit ?? 2048, logger: createLogger('silent'),
  };
  // The bench's clients all come from 127.0.0.1: the per-address limit would stop them.
  const smtp = listener === 'smtp' ? createSmtpServer(deps, { maxClientsPerAddress: 1000, closeTimeoutMs: 1000 }) : undefined;
  const api = smtp ? undefined : createApiServer({ ...deps, namespace: sends?.namespace ?? 'default' });
  const server = smtp ? smtp.server : api!;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  parentPort!.once('message', async () => {
    if (smtp) await new Promise<void>((resolve) => smtp.close(() => resolve()));
    if (api) {
      api.closeAllConnections();
      await new Promise((resolve) => api.close(resolve));
    }
    await temporal.connection.close();
    await store.close();
    process.exit(0); // ends this thread only
  });
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port });
}

if (!isMainThread && (workerData as Start | undefined)?.role === ROLE) {
  serve(workerData as Start).catch((error: Error) => parentPort!.postMessage({ error: error.stack ?? String(error) }));
}
