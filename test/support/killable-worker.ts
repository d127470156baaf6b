// The stack of the crash tests (test/e2e/*worker-kill*): the API in the test process, workers as
// `node dist/worker.js` processes a test can SIGKILL and replace, a slow recording SMTP sink
// (each message acknowledged 20 ms after its data, so a kill lands mid-send) unless the test gives
// another, and a database of its own. Built by npm test before jest runs.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { WORKER_NODE_FLAGS } from '../../composition/node-flags';
import { newId } from '../../core/shared/ids';
import { composeTestHerald, dropDatabase, listenLocally, suiteMongodbUri, type TestServices } from './herald';
import { startSmtpSink } from './smtp-sink';

const root = path.resolve(__dirname, '../..');

/** What the workers send to: a sink with a URL, closed by stop(). */
interface Sink { url: string; close(): Promise<void> }

export interface KillableStack<S extends Sink = Awaited<ReturnType<typeof startSmtpSink>>> {
  services: TestServices;
  sink: S;
  apiUrl: string;
  /** Starts a worker process; kill it with SIGKILL to simulate a crash. */
  startWorker(): ChildProcess;
  /** Stops the workers still running cleanly (SIGTERM), then the API, the database and the sink. */
  stop(): Promise<void>;
}

/** What a test may change: the sink (the slow recording one by default), the store (the suite's by default). */
interface StackOptions<S extends Sink> { startSink: () => Promise<S>; mongodbUri?: string }

/** The stack: its sink the slow recording one unless `options` give another; the suite's store unless they give one. */
export async function startKillableStack(databasePrefix: string): Promise<KillableStack>;
export async function startKillableStack<S extends Sink>(databasePrefix: string, options: StackOptions<S>): Promise<KillableStack<S>>;
export async function startKillableStack(
  databasePrefix: string, options: StackOptions<Sink> = { startSink: () => startSmtpSink({ delayMs: 20 }) },
): Promise<KillableStack<Sink>> {
  const sink = await options.startSink();
  const mongodbUri = options.mongodbUri ?? suiteMongodbUri();
  const database = `${databasePrefix}_${newId().slice(0, 8)}`;
  const settings = {
    SMTP_RELAY_URL: sink.url, HERALD_MONGODB_DATABASE: database, HERALD_TASK_QUEUE: database, HERALD_MTA_HOST: 'mx.herald.test', HERALD_WORKER_METRICS_PORT: '0',
  };
  // The workers load the workflow code the global setup bundled once (as the Docker image's do).
  const workerEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, NODE_ENV: 'production', MONGODB_URI: mongodbUri, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS, HERALD_LOG_LEVEL: 'warn',
    ...(process.env.HERALD_WORKFLOW_BUNDLE ? { HERALD_WORKFLOW_BUNDLE: process.env.HERALD_WORKFLOW_BUNDLE } : {}), ...settings,
  };
  // The API and the test's store and Temporal client, in this process, on the same database and queue.
  const herald = composeTestHerald({ ...settings, MONGODB_URI: mongodbUri });
  const [store, temporal] = await Promise.all([herald.store(), herald.temporal()]);
  const apiUrl = await listenLocally(await herald.apiServer());
  const workers: ChildProcess[] = [];
  return {
    services: { store, temporal, taskQueue: database },
    sink,
    apiUrl,
    startWorker() {
      const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, path.join(root, 'dist/worker.js')], { env: workerEnv, cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
      let errors = '';
      child.stderr!.on('data', (chunk) => { errors = (errors + chunk).slice(-4000); });
      child.once('exit', (code, signal) => { if (code) console.error(`worker exited ${code ?? signal}: ${errors}`); });
      workers.push(child);
      return child;
    },
    async stop() {
      // The workers left stop cleanly (SIGTERM: the SDK lets them finish) before the sink closes.
      await Promise.all(workers.filter((child) => child.exitCode === null && child.signalCode === null).map((child) => new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      })));
      await herald.close();
      if (!options.mongodbUri) await dropDatabase(database).catch(() => undefined);
      await sink.close();
    },
  };
}
