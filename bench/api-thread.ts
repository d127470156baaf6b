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
import { profileThread, type StageRule } from './cpu-profile';
import { threadId } from './cpu-usage';
import type { Teardown } from './support';

const ROLE = 'herald-bench-api';

/** Where the API's sends go; without it, only the account API works (a Temporal client that is never used). */
export interface ApiTemporal { address: string; namespace: string; taskQueue: string }

interface Start { role: typeof ROLE; listener: 'api' | 'smtp'; uri: string; database: string; temporal?: ApiTemporal }

/** A listener running on its thread: its port, its thread id (for its CPU in /proc), and a profile of it on demand. */
export interface ListenerThread {
  port: number;
  tid: number;
  /** Starts sampling the thread; the returned function stops and gives ms per stage (bench/cpu-profile.ts). */
  profile(name: string, rules: StageRule[]): Promise<() => Promise<Record<string, number>>>;
}

/** Starts the API on its own thread against the store at `uri`; resolves to its base URL. */
export async function startApiThread(uri: string, database: string, teardown: Teardown, temporal?: ApiTemporal): Promise<string> {
  return `http://127.0.0.1:${(await startListener('api', uri, database, teardown, temporal)).port}`;
}

/** Starts the SMTP listener on its own thread against the store at `uri`; resolves to its port. */
export async function startSmtpThread(uri: string, database: string, teardown: Teardown, temporal: ApiTemporal): Promise<number> {
  return (await startListener('smtp', uri, database, teardown, temporal)).port;
}

type ToThread = { stop: true } | { profile: 'start'; name: string; rules: StageRule[] } | { profile: 'stop' };
type FromThread = { port?: number; tid?: number; error?: string } | { profiling: true } | { stages: Record<string, number> };

/** The listener on its own thread, with what a scenario measuring it needs. */
export async function startListener(
  listener: Start['listener'], uri: string, database: string, teardown: Teardown, temporal?: ApiTemporal,
): Promise<ListenerThread> {
  const worker = new Worker(__filename, { workerData: { role: ROLE, listener, uri, database, temporal } satisfies Start });
  teardown.defer(`${listener} thread`, async () => {
    const exited = once(worker, 'exit');
    worker.postMessage({ stop: true } satisfies ToThread);
    await exited;
  });
  const next = async <T extends FromThread>() => {
    const [reply] = await Promise.race([once(worker, 'message'), once(worker, 'error').then(([error]) => { throw error; })]) as [T];
    return reply;
  };
  const ready = await next<{ port?: number; tid?: number; error?: string }>();
  if (!ready.port) throw new Error(`the ${listener} thread did not start: ${ready.error}`);
  return {
    port: ready.port,
    tid: ready.tid!,
    async profile(name, rules) {
      worker.postMessage({ profile: 'start', name, rules } satisfies ToThread);
      await next<{ profiling: true }>();
      return async () => {
        worker.postMessage({ profile: 'stop' } satisfies ToThread);
        return (await next<{ stages: Record<string, number> }>()).stages;
      };
    },
  };
}

/** The thread's side: the listener built by the composition root; serve until told to stop, then close it. */
async function serve({ listener, uri, database, temporal: sends }: Start): Promise<void> {
  const config = loadConfig({
    ...process.env, MONGODB_URI: uri, HERALD_MONGODB_DATABASE: database, HERALD_LOG_LEVEL: 'silent',
    // Without sends, a Temporal client that never connects (nothing is started through it).
    TEMPORAL_ADDRESS: sends?.address ?? '127.0.0.1:1', TEMPORAL_NAMESPACE: sends?.namespace ?? 'default', HERALD_TASK_QUEUE: sends?.taskQueue ?? 'unused',
  });
  const herald = composeHerald(config, {
    logger: createLogger('silent'), lazyTemporal: !sends,
    // The bench's clients all come from 127.0.0.1: the per-address limit would stop them.
    smtp: { maxClientsPerAddress: 1000, closeTimeoutMs: 1000 },
  });
  const server = listener === 'smtp' ? (await herald.smtpServer()).server : await herald.apiServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let stopProfile: (() => Promise<Record<string, number>>) | undefined;
  parentPort!.on('message', async (message: ToThread) => {
    if ('stop' in message) {
      if ('closeAllConnections' in server) server.closeAllConnections();
      await herald.close();
      process.exit(0); // ends this thread only
    } else if (message.profile === 'start') {
      stopProfile = await profileThread(message.name, message.rules);
      parentPort!.postMessage({ profiling: true } satisfies FromThread);
    } else {
      parentPort!.postMessage({ stages: await stopProfile!() } satisfies FromThread);
    }
  });
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port, tid: threadId() } satisfies FromThread);
}

if (!isMainThread && (workerData as Start | undefined)?.role === ROLE) {
  serve(workerData as Start).catch((error: Error) => parentPort!.postMessage({ error: error.stack ?? String(error) }));
}
