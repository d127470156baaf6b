// The stack of the crash tests (test/e2e/*worker-kill*): the API in the test process, workers as
// `node dist/worker.js` processes a test can SIGKILL and replace, a slow recording SMTP sink
// (each message acknowledged 20 ms after its data, so a kill lands mid-send), and a database of
// its own. Built by npm test before jest runs.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from '../../api/app';
import { loadConfig } from '../../composition/config';
import { newId } from '../../core/shared/ids';
import { createLogger } from '../../adapters/logger';
import { connectServices, type Services } from '../../composition/services';
import { startSmtpSink } from './smtp-sink';

const root = path.resolve(__dirname, '../..');
const withoutDatabase = (uri: string) => uri.replace(/\/[^/?]*(\?|$)/, '/$1');

export interface KillableStack {
  services: Services;
  sink: Awaited<ReturnType<typeof startSmtpSink>>;
  apiUrl: string;
  /** Starts a worker process; kill it with SIGKILL to simulate a crash. */
  startWorker(): ChildProcess;
  /** Stops the workers still running cleanly (SIGTERM), then the API, the database and the sink. */
  stop(): Promise<void>;
}

export async function startKillableStack(databasePrefix: string): Promise<KillableStack> {
  const sink = await startSmtpSink({ delayMs: 20 });
  const database = `${databasePrefix}_${newId().slice(0, 8)}`;
  const mongodbUri = withoutDatabase(process.env.MONGODB_URI!);
  const workerEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, NODE_ENV: 'production', MONGODB_URI: mongodbUri, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    SMTP_RELAY_URL: sink.url, HERALD_MONGODB_DATABASE: database, HERALD_TASK_QUEUE: database, HERALD_MTA_HOST: 'mx.herald.test', HERALD_LOG_LEVEL: 'warn', HERALD_WORKER_METRICS_PORT: '0',
  };
  const config = loadConfig({ ...workerEnv, HERALD_LOG_LEVEL: 'silent' });
  const services = await connectServices(config, { mongodbUri, temporalAddress: process.env.TEMPORAL_ADDRESS! });
  const api = http.createServer(createApp({ ...services, namespace: config.temporalNamespace, logger: createLogger('silent') }).callback());
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const workers: ChildProcess[] = [];
  return {
    services,
    sink,
    apiUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    startWorker() {
      const child = spawn(process.execPath, [path.join(root, 'dist/worker.js')], { env: workerEnv, cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
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
      await new Promise((resolve) => api.close(resolve));
      await services.store.db.dropDatabase().catch(() => undefined);
      await services.close();
      await sink.close();
    },
  };
}
