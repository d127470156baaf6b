// `npm start`: the whole service on one machine. Starts the embedded Temporal, store and
// mail sink for whatever the environment does not configure, then the API, the SMTP
// listener and the worker in this process. Ctrl-C stops everything cleanly.
import fs from 'node:fs';
import { createAccount } from './core/accounts/accounts';
import { randomToken } from './core/accounts/keys';
import { describeConfig, loadConfig, type Config } from './composition/config';
import { composeHerald } from './composition/herald';
import { listen, onShutdownSignal } from './composition/process';
import { createLogger, type Logger } from './adapters/logger';
import { quietTemporalRuntime } from './adapters/temporal/runtime';
import { embeddedPaths } from './infra/embedded-paths';
import { startMailSink } from './infra/mail-sink';
import { stopLeftovers, type ChildName } from './infra/leftovers';
import { isListening, reservePorts } from './infra/ports';
import {
  markStackStopped, readRecordFile, readStackRecord, withStackAddresses, writeStackRecord, type StackRecord,
} from './infra/stack-record';
import { startEmbeddedStore } from './infra/store';
import { supervise, type Restartable } from './infra/supervisor';
import { startEmbeddedTemporal } from './infra/temporal';

type Stop = () => Promise<void>;

/** A port used last time for this data folder, if it is still free (keeps URLs stable). */
async function reuse(port: number | undefined): Promise<number | undefined> {
  return port && !(await isListening('127.0.0.1', port)) ? port : undefined;
}

/** Starts what the environment does not configure, supervised; returns the addresses and how to stop them. */
async function startEmbeddedStack(config: Config, logger: Logger) {
  const paths = embeddedPaths(config.dataDir);
  const previous = readRecordFile(config.dataDir);
  const leftovers = await stopLeftovers(previous);
  if (leftovers.length > 0) logger.warn({ leftovers }, 'ended embedded services left running by an earlier start');
  const before = previous?.ports ?? {};
  const stops: Stop[] = [];
  const record: StackRecord = { pid: process.pid, ports: {}, children: {} };
  const ports = record.ports!;
  const children = record.children!;
  /** Restarts it on the same file and ports when it dies, and records the new pid. */
  const keep = <T extends Restartable>(name: ChildName, logFile: string, first: T, restart: () => Promise<T>) => {
    children[name] = first.pid;
    const supervised = supervise(first, {
      name: name === 'mailSink' ? 'mail sink' : name, restart, logger, logFile,
      onRestarted: (handle) => {
        children[name] = handle.pid;
        writeStackRecord(config.dataDir, record);
      },
    });
    stops.push(supervised.stop);
  };
  try {
    // Only embedded services are recorded: configured addresses (maybe with passwords) stay in the environment.
    if (!config.mongodbUri) {
      logger.info('starting the embedded store (mongo-java-server)');
      const options = { file: paths.storeFile, port: await reuse(before.store), logFile: paths.log('store') };
      const store = await startEmbeddedStore(options);
      keep('store', options.logFile, store, () => startEmbeddedStore({ ...options, port: store.port }));
      record.mongodbUri = store.uri;
      ports.store = store.port;
    }
    if (!config.temporalAddress) {
      logger.info('starting the embedded Temporal dev server');
      const options = {
        dbFile: paths.temporalDb, port: await reuse(before.temporal), uiPort: await reuse(before.temporalUi), logFile: paths.log('temporal'),
      };
      const temporal = await startEmbeddedTemporal(options);
      keep('temporal', options.logFile, temporal, () => startEmbeddedTemporal({ ...options, port: temporal.ports.grpc, uiPort: temporal.ports.ui }));
      record.temporalAddress = temporal.address;
      record.temporalUiUrl = temporal.uiUrl;
      ports.temporal = temporal.ports.grpc;
      ports.temporalUi = temporal.ports.ui;
    }
    if (!config.smtpRelayUrl && !config.relays) {
      logger.info('starting the local mail sink (maildev)');
      const options = { dir: paths.mailDir, smtpPort: await reuse(before.mailSmtp), webPort: await reuse(before.mailUi), logFile: paths.log('mail-sink') };
      const sink = await startMailSink(options);
      keep('mailSink', options.logFile, sink, () => startMailSink({ ...options, smtpPort: sink.smtpPort, webPort: sink.webPort }));
      record.smtpRelayUrl = sink.smtpUrl;
      record.mailUiUrl = sink.webUrl;
      ports.mailSmtp = sink.smtpPort;
      ports.mailUi = sink.webPort;
    }
  } catch (error) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw error;
  }
  return { record, stop: async () => { for (const stop of stops.reverse()) await stop(); } };
}

async function main() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'herald');
  fs.mkdirSync(config.dataDir, { recursive: true });
  const running = readStackRecord(config.dataDir);
  if (running) throw new Error(`Herald is already running for ${config.dataDir} (pid ${running.pid}); use another HERALD_DATA_DIR.`);
  logger.info({ config: describeConfig(config) }, 'starting Herald');

  quietTemporalRuntime();
  reservePorts([config.apiPort, config.smtpPort]);
  const stack = await startEmbeddedStack(config, logger);
  writeStackRecord(config.dataDir, stack.record);
  try {
    await runHerald(config, logger, stack);
  } catch (error) {
    await stack.stop().catch(() => undefined);
    markStackStopped(config.dataDir);
    throw error;
  }
}

/** The API, the SMTP listener and the worker, on top of a started stack. */
async function runHerald(config: Config, logger: Logger, stack: { record: StackRecord; stop: Stop }) {
  const herald = composeHerald(withStackAddresses(config), { logger });
  try {
    const worker = await herald.worker();
    const workerRun = worker.run();
    workerRun.catch((error) => logger.error({ err: error }, 'worker stopped with an error'));
    await listen(await herald.apiServer(), config.apiPort, config.bindHost, 'API');
    await listen((await herald.smtpServer()).server, config.smtpPort, config.bindHost, 'SMTP');
  } catch (error) {
    await herald.close().catch(() => undefined);
    throw error;
  }
  const store = await herald.store();
  const firstStart = (await store.accounts.countDocuments({}, { limit: 1 })) === 0;
  const demoPassword = randomToken(20);
  const demo = firstStart ? { ...(await createAccount(store, 'demo', demoPassword)), password: demoPassword } : undefined;
  printBanner(config, stack.record, demo);

  onShutdownSignal(async () => {
    logger.info('stopping Herald');
    await herald.close();
    await stack.stop();
    markStackStopped(config.dataDir);
    logger.info('Herald stopped');
  });
}

function printBanner(config: Config, record: StackRecord, demo?: { account: string; apiKey: string; transactionalKey: string; password: string }) {
  const host = config.bindHost === '0.0.0.0' ? 'localhost' : config.bindHost;
  const lines = [
    '',
    'Herald is running',
    `  Console        http://${host}:${config.apiPort}/console`,
    `  API            http://${host}:${config.apiPort}   (transactional: POST /v1/mail/send)`,
    `  SMTP           ${host}:${config.smtpPort}   (AUTH LOGIN, user "apikey", password: a transactional key)`,
    `  Temporal UI    ${record.temporalUiUrl ?? `(external Temporal at ${config.temporalAddress})`}`,
    `  Mail UI        ${record.mailUiUrl ?? '(mail goes to SMTP_RELAY_URL)'}`,
    `  Data folder    ${config.dataDir}`,
  ];
  if (demo) {
    lines.push('', 'Created the demo account (keys and password are shown only now; they are stored hashed):',
      `  account            ${demo.account}`, `  API key            ${demo.apiKey}`, `  transactional key  ${demo.transactionalKey}`,
      `  console sign-in    owner@${demo.account}   password ${demo.password}`);
  } else {
    lines.push('', 'More accounts and keys: npx herald account create <name>; a console user: npx herald user create <account> <email>');
  }
  lines.push('', 'Press Ctrl-C to stop.', '');
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error) => {
  console.error(`Herald could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
