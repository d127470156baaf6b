// The embedded Temporal: `temporal server start-dev` on loopback, SQLite file (or memory),
// web UI on, Herald's search attributes registered at start.
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { searchAttributeKeys } from '../adapters/temporal/contracts';
import { startChild, tailOf, type ChildExit } from './child';
import { freePort, startOnFreePorts, waitForPort } from './ports';
import { temporalCliPath } from './python-tools';

export interface EmbeddedTemporal {
  /** Process id, recorded so a later start can end what a crashed one left running. */
  pid: number;
  address: string;
  namespace: string;
  uiUrl: string;
  ports: { grpc: number; ui: number; http: number; metrics: number };
  stop(): Promise<void>;
  /** Settles when the process ends, for whatever reason (supervision). */
  exited: Promise<ChildExit>;
}

export interface EmbeddedTemporalOptions {
  /** SQLite file for durable state; null keeps everything in memory (tests). */
  dbFile: string | null;
  port?: number;
  uiPort?: number;
  logFile: string;
}

const HOST = '127.0.0.1';
const NAMESPACE = 'default';
const READY_TIMEOUT_MS = 60_000;

/** The CLI's names for search attribute types (`--search-attribute KEY=TYPE`). */
const CLI_TYPE: Record<SearchAttributeType, string> = {
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

/** `findFreePort`: where unset ports come from (a test hands out a taken one first). */
export function startEmbeddedTemporal(opts: EmbeddedTemporalOptions, findFreePort = freePort): Promise<EmbeddedTemporal> {
  return startOnFreePorts(() => startOnce(opts, findFreePort), (error) => /address already in use/.test((error as Error).message));
}

async function startOnce(opts: EmbeddedTemporalOptions, findFreePort: typeof freePort): Promise<EmbeddedTemporal> {
  const cli = await temporalCliPath();
  // Every port is set explicitly: the dev server binds unset ones at random or on other interfaces.
  const taken = new Set<number>();
  const pick = async (given?: number) => {
    let port = given ?? await findFreePort(HOST);
    while (given === undefined && taken.has(port)) port = await findFreePort(HOST);
    taken.add(port);
    return port;
  };
  const ports = { grpc: await pick(opts.port), ui: await pick(opts.uiPort), http: await pick(), metrics: await pick() };

  const args = [
    'server', 'start-dev',
    '--ip', HOST, '--ui-ip', HOST,
    '--port', String(ports.grpc), '--ui-port', String(ports.ui),
    '--http-port', String(ports.http), '--metrics-port', String(ports.metrics),
    '--namespace', NAMESPACE,
    '--log-level', 'warn',
    // Machines may be offline; the UI should not try to fetch its news feed.
    '--ui-disable-news-fetch',
  ];
  if (opts.dbFile) {
    fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
    // WAL + synchronous=normal: measured several times faster than SQLite's defaults for the
    // dev server, and still crash-safe for the database (a power cut may lose the last commits).
    args.push('--db-filename', opts.dbFile, '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  }
  for (const key of Object.values(searchAttributeKeys)) {
    args.push('--search-attribute', `${key.name}=${CLI_TYPE[key.type]}`);
  }

  const child = startChild({ name: 'temporal', command: cli, args, logFile: opts.logFile });
  let exitCode: number | string | null = null;
  const exited = new Promise<never>((_, reject) => {
    const fail = (what: string) => reject(new Error(
      `Temporal dev server (${cli}) ${what} before it was ready. Last lines of ${opts.logFile}:\n${tailOf(opts.logFile)}`));
    child.process.once('exit', (code, signal) => { exitCode = code ?? signal; fail(`exited with ${exitCode}`); });
    child.process.once('error', (err) => { exitCode = err.message; fail(`could not start (${err.message})`); });
  });
  exited.catch(() => undefined); // observed below; avoid an unhandled rejection after success

  const address = `${HOST}:${ports.grpc}`;
  try {
    await Promise.race([exited, waitUntilReady(address, () => exitCode !== null, opts.logFile)]);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return {
    address,
    namespace: NAMESPACE,
    uiUrl: `http://${HOST}:${ports.ui}`,
    ports,
    pid: child.process.pid ?? 0,
    stop: () => child.stop(),
    exited: child.exited,
  };
}

/**
 * The UI answers a moment before gRPC is ready, and an open port is not yet a working
 * frontend, so readiness is a real client call: connect and describe the namespace.
 */
async function waitUntilReady(address: string, hasExited: () => boolean, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const waiting = () => !hasExited() && Date.now() < deadline;
  const [host, port] = address.split(':');
  // Short port waits in a loop, so a server that died stops the polling at once.
  while (waiting()) {
    try {
      await waitForPort(host, Number(port), 1000, 'Temporal dev server');
      break;
    } catch { /* not listening yet */ }
  }
  let lastError: unknown;
  while (waiting()) {
    // lazy + ensureConnected rather than Connection.connect(): a failed connect() leaks its
    // gRPC channel (nothing left to close). Short attempts: one in flight when the server
    // dies keeps the caller's process alive until it times out.
    const connection = Connection.lazy({ address, connectTimeout: 2000 });
    try {
      await connection.ensureConnected();
      await connection.withDeadline(Date.now() + 2000, () =>
        connection.workflowService.describeNamespace({ namespace: NAMESPACE }));
      return;
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    } finally {
      await connection.close();
    }
  }
  if (hasExited()) return; // the exit handler reports it, with the log
  throw new Error(`Temporal dev server at ${address} did not answer describeNamespace within ` +
    `${READY_TIMEOUT_MS / 1000} s (${(lastError as Error | undefined)?.message ?? 'port never opened'}). ` +
    `Last lines of ${logFile}:\n${tailOf(logFile)}`);
}
