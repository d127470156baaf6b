// Herald's processes under the soak, each one killable on its own: the embedded store and
// Temporal started from the data folder as `npm start` starts them, and the API, the SMTP
// listener and the worker as the separate entry points (`npm run start:api`, `start:smtp`,
// `start:worker`, compose's services) so that one can die while the others keep going. The soak
// is their supervisor, as systemd's `Restart=always` would be: whatever exits, by a kill or by
// itself, is started again on the same ports after a second (longer while its start fails).
import path from 'node:path';
import fs from 'node:fs';
import { projectRoot } from '../../adapters/project-root';
import { WORKER_NODE_FLAGS } from '../../composition/node-flags';
import { startChild, type ChildExit } from '../../infra/child';
import { embeddedPaths } from '../../infra/embedded-paths';
import { freePort, waitForPort } from '../../infra/ports';
import { startEmbeddedStore } from '../../infra/store';
import { startEmbeddedTemporal } from '../../infra/temporal';
import { log } from '../support';

export const PROCESS_NAMES = ['store', 'temporal', 'worker', 'api', 'smtp'] as const;
export type ProcessName = typeof PROCESS_NAMES[number];

interface Running { pid: number; exited: Promise<ChildExit>; stop(): Promise<void> }

interface Slot {
  name: ProcessName;
  start: () => Promise<Running>;
  current?: Running;
  /** Set while the soak itself killed it: its exit is expected. */
  killing: boolean;
  restarting?: Promise<void>;
  restarts: number;
  unexpectedExits: number;
}

export interface FleetAddresses {
  apiUrl: string;
  smtpPort: number;
  mongodbUri: string;
  temporalAddress: string;
  env: NodeJS.ProcessEnv;
}

const dist = path.join(projectRoot, 'dist');
const HOST = '127.0.0.1';
const RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 10_000;

export class Fleet {
  private readonly slots = new Map<ProcessName, Slot>();
  private stopping = false;

  private constructor(readonly dir: string, readonly addresses: FleetAddresses) {}

  /** Starts everything on the data folder `dir`, mail going to `relayUrl`. */
  static async start(dir: string, relayUrl: string): Promise<Fleet> {
    const paths = embeddedPaths(dir);
    const [storePort, temporalPort, temporalUiPort, apiPort, smtpPort, workerMetricsPort] = await distinctPorts(6);
    const storeOptions = { file: paths.storeFile, port: storePort, logFile: paths.log('store') };
    const temporalOptions = { dbFile: paths.temporalDb, port: temporalPort, uiPort: temporalUiPort, logFile: paths.log('temporal') };
    const mongodbUri = `mongodb://${HOST}:${storePort}/`;
    const temporalAddress = `${HOST}:${temporalPort}`;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH, NODE_ENV: 'production', HERALD_DATA_DIR: dir, MONGODB_URI: mongodbUri, TEMPORAL_ADDRESS: temporalAddress,
      SMTP_RELAY_URL: relayUrl, HERALD_BIND_HOST: HOST, HERALD_API_PORT: String(apiPort), HERALD_SMTP_PORT: String(smtpPort),
      HERALD_PUBLIC_URL: `http://${HOST}:${apiPort}`, HERALD_WEBHOOK_ALLOW_PRIVATE: '1', HERALD_MTA_HOST: 'mx.soak.test',
      HERALD_WORKER_METRICS_PORT: String(workerMetricsPort), HERALD_LOG_LEVEL: 'info',
    };
    const fleet = new Fleet(dir, { apiUrl: `http://${HOST}:${apiPort}`, smtpPort, mongodbUri, temporalAddress, env });
    const node = (name: ProcessName, script: string, port: number, flags: readonly string[] = []) => async (): Promise<Running> => {
      const child = startChild({ name, command: process.execPath, args: [...flags, path.join(dist, script)], env, cwd: projectRoot, logFile: paths.log(name) });
      await Promise.race([
        waitForPort(HOST, port, 60_000, name),
        child.exited.then((exit) => { throw new Error(`${name} exited at start (${exit.code ?? exit.signal})`); }),
      ]);
      return { pid: child.process.pid!, exited: child.exited, stop: () => child.stop(10_000) };
    };
    fleet.add('store', () => startEmbeddedStore(storeOptions));
    fleet.add('temporal', () => startEmbeddedTemporal(temporalOptions));
    fleet.add('worker', node('worker', 'worker.js', workerMetricsPort, WORKER_NODE_FLAGS));
    fleet.add('api', node('api', 'api/main.js', apiPort));
    fleet.add('smtp', node('smtp', 'smtp/main.js', smtpPort));
    await Promise.all([fleet.launch('store'), fleet.launch('temporal')]);
    await Promise.all([fleet.launch('worker'), fleet.launch('api'), fleet.launch('smtp')]);
    return fleet;
  }

  private add(name: ProcessName, start: () => Promise<Running>): void {
    this.slots.set(name, { name, start, killing: false, restarts: 0, unexpectedExits: 0 });
  }

  private async launch(name: ProcessName): Promise<void> {
    const slot = this.slots.get(name)!;
    const running = await slot.start();
    slot.current = running;
    void running.exited.then(() => this.onExit(slot, running));
  }

  private onExit(slot: Slot, running: Running): void {
    if (this.stopping || slot.current !== running) return;
    if (!slot.killing) {
      slot.unexpectedExits += 1;
      log(`soak: ${slot.name} (pid ${running.pid}) exited by itself; restarting it`);
    }
    slot.current = undefined;
    slot.restarting = this.restart(slot);
  }

  /** Starts it again after a second, and again, longer each time, while its start fails. */
  private async restart(slot: Slot): Promise<void> {
    let delay = RESTART_DELAY_MS;
    while (!this.stopping) {
      await sleep(delay);
      if (this.stopping) return;
      try {
        await this.launch(slot.name);
        slot.restarts += 1;
        slot.killing = false;
        return;
      } catch (error) {
        log(`soak: ${slot.name} did not start again (${(error as Error).message.split('\n')[0]}); retrying in ${Math.min(delay * 2, MAX_RESTART_DELAY_MS) / 1000} s`);
        delay = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
      }
    }
  }

  /** SIGKILLs the processes named (all of them: a machine losing power) and lets the supervision restart them. */
  async kill(names: readonly ProcessName[]): Promise<void> {
    const exits: Array<Promise<unknown>> = [];
    for (const name of names) {
      const slot = this.slots.get(name)!;
      if (!slot.current) continue;
      slot.killing = true;
      exits.push(slot.current.exited);
      process.kill(slot.current.pid, 'SIGKILL');
    }
    await Promise.all(exits);
  }

  /** Resolves once every process runs again (after a kill, when the supervision brought them back). */
  async allRunning(): Promise<void> {
    for (;;) {
      const pending = [...this.slots.values()].map((slot) => slot.restarting).filter((p): p is Promise<void> => p !== undefined);
      if ([...this.slots.values()].every((slot) => slot.current !== undefined)) return;
      await Promise.race([...pending, sleep(200)]);
    }
  }

  pids(): Partial<Record<ProcessName, number>> {
    return Object.fromEntries([...this.slots.values()].filter((slot) => slot.current).map((slot) => [slot.name, slot.current!.pid]));
  }

  counts(): Record<ProcessName, { restarts: number; unexpected_exits: number }> {
    return Object.fromEntries([...this.slots.values()].map((slot) => [slot.name, { restarts: slot.restarts, unexpected_exits: slot.unexpectedExits }])) as never;
  }

  /** Resident memory of each process now, in MB (from /proc). */
  memoryMb(): Partial<Record<ProcessName, number>> {
    const out: Partial<Record<ProcessName, number>> = {};
    for (const [name, pid] of Object.entries(this.pids()) as Array<[ProcessName, number]>) {
      const kb = residentKb(pid);
      if (kb !== undefined) out[name] = Math.round(kb / 1024);
    }
    return out;
  }

  /** Stops everything cleanly, the Herald processes first, the store last. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const name of ['api', 'smtp', 'worker', 'temporal', 'store'] as const) {
      await this.slots.get(name)?.current?.stop().catch(() => undefined);
    }
  }
}

/** VmRSS of a process, including its threads (a JVM's, Temporal's); undefined once gone. */
function residentKb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function distinctPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort(HOST));
  return [...ports];
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
