// The HTTP API or the SMTP listener on a thread of its own, for benchmarks that load them. In
// production each is a process of its own and its clients are elsewhere; run in the benchmark's
// own thread, the load generator would share the listener's event loop and its figure would
// include the client's work. Its store client is its own too, as a separate process's would be.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { createLogger } from '../adapters/logger';
import { loadConfig } from '../composition/config';
import { composeHerald } from '../composition/herald';
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

/** The thread's side: the listener built by the composition root; serve until told to stop, then close it. */
async function serve({ listener, uri, database, temporal: sends }: Start): Promise<void> {
  const config = loadConfig({
    ...process.env, MONGODB_URI: uri, HERALD_MONGODB_DATABASE: database, HERALD_LOG_LEVEL: 'silent',
    // Without sends, a Temporal client that never connects (nothing is started through it).
    TEMPORAL_ADDRESS: sends?.address ?? '127.0.0.1:1', TEMPORAL_NAMESPACE: sends?.namespace ?? 'default', HERALD_TASK_QUEUE: sends?.taskQueue ?? 'unused',
    TEMPORAL_SEARCH_ATTRIBUTE_LIMIT: String(sends?.searchAttributeLimit ?? 2048),
  });
  const herald = composeHerald(config, {
    logger: createLogger('silent'), lazyTemporal: !sends,
    // The bench's clients all come from 127.0.0.1: the per-address limit would stop them.
    smtp: { maxClientsPerAddress: 1000, closeTimeoutMs: 1000 },
  });
  const server = listener === 'smtp' ? (await herald.smtpServer()).server : await herald.apiServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  parentPort!.once('message', async () => {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await herald.close();
    process.exit(0); // ends this thread only
  });
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port });
}

if (!isMainThread && (workerData as Start | undefined)?.role === ROLE) {
  serve(workerData as Start).catch((error: Error) => parentPort!.postMessage({ error: error.stack ?? String(error) }));
}
