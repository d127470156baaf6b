// What herald-send and smtp-send both start: the embedded store (memory) and Temporal, a counting
// relay, the bare signalWithStart reference on that Temporal server, and Herald's worker in this
// thread with an account to send as. Each scenario adds its own listener thread and load.
import path from 'node:path';
import { createAccount } from '../core/accounts/accounts';
import { loadConfig, type Config } from '../composition/config';
import type { Store } from '../adapters/store/store';
import { composeHerald, type Herald, type HeraldTuning } from '../composition/herald';
import { createLogger } from '../adapters/logger';
import { newId } from '../core/shared/ids';
import { connectTemporal } from '../adapters/temporal/client';
import { startEmbeddedStore, type EmbeddedStore } from '../infra/store';
import { startEmbeddedTemporal } from '../infra/temporal';
import type { ApiTemporal } from './api-thread';
import { startCountingSink, type CountingSink } from './counting-sink';
import { log, Teardown } from './support';
import { measureNoopWorkflows, measureSignalWithStart, startBenchWorker } from './temporal-bare';

export interface BenchStack {
  store: EmbeddedStore;
  temporal: { address: string; namespace: string; pid: number };
  sink: CountingSink;
}

/** `storeFile`: the store on an H2 file (npm start's store) instead of memory, for data beyond the memory backend's 1 GB heap. */
export async function startBenchStack(scenario: string, teardown: Teardown, options: { storeFile?: boolean } = {}): Promise<BenchStack> {
  const dir = teardown.tempDir(`herald-bench-${scenario}-`);
  log(`${scenario}: starting the embedded store (${options.storeFile ? 'H2 file' : 'memory'}) and Temporal (SQLite file)`);
  const [storeStart, temporalStart] = await Promise.allSettled([
    startEmbeddedStore({ file: options.storeFile ? path.join(dir, 'store.h2') : null, logFile: path.join(dir, 'store.log') }),
    startEmbeddedTemporal({ dbFile: path.join(dir, 'temporal.db'), logFile: path.join(dir, 'temporal.log') }),
  ]);
  if (storeStart.status === 'fulfilled') teardown.defer('store', () => storeStart.value.stop());
  if (temporalStart.status === 'fulfilled') teardown.defer('temporal', () => temporalStart.value.stop());
  if (storeStart.status === 'rejected') throw storeStart.reason;
  if (temporalStart.status === 'rejected') throw temporalStart.reason;
  const sink = await startCountingSink();
  teardown.defer('counting sink', () => sink.stop());
  return { store: storeStart.value, temporal: temporalStart.value, sink };
}

/**
 * Bare signalWithStart calls per second into one workflow on the stack's Temporal server,
 * `concurrency` in flight; and no-op workflows per second when asked. The reference's worker is
 * stopped before Herald starts, so it does not compete for the CPU.
 */
export async function measureTemporalReference(stack: BenchStack, concurrency: number, withWorkflows: boolean) {
  const ref = new Teardown();
  try {
    const client = await connectTemporal(stack.temporal.address, stack.temporal.namespace);
    ref.defer('reference client', () => client.connection.close());
    await startBenchWorker(stack.temporal.address, 'bench-ref', ref);
    const signalWithStartPerS = (await measureSignalWithStart(client, 'bench-ref', 2000, concurrency)).signal_with_start_per_s;
    const workflowsPerS = withWorkflows ? (await measureNoopWorkflows(client, 'bench-ref')).workflows_per_s : undefined;
    return { signalWithStartPerS, workflowsPerS };
  } finally {
    await ref.run();
  }
}

/**
 * Herald built by the composition root on the bench stack (its store, Temporal and counting
 * relay), with `env` on top of the process's environment; closed by the teardown.
 */
export function composeBenchHerald(stack: BenchStack, teardown: Teardown, env: Record<string, string>, tuning: HeraldTuning = {}): Herald {
  const config = loadConfig({
    ...process.env, MONGODB_URI: stack.store.uri, TEMPORAL_ADDRESS: stack.temporal.address, SMTP_RELAY_URL: stack.sink.url,
    HERALD_MTA_HOST: 'herald.bench', HERALD_LOG_LEVEL: 'silent', ...env,
  });
  const herald = composeHerald(config, { logger: createLogger('silent'), ...tuning });
  teardown.defer('herald', () => herald.close());
  return herald;
}

export interface BenchHerald {
  herald: Herald;
  config: Config;
  store: Store;
  /** What a listener thread needs to hand sends to Temporal. */
  listenerTemporal: ApiTemporal;
  account: string;
  /** The account owner's key for the account API. */
  apiKey: string;
  transactionalKey: string;
  /** Starts the worker when `deferWorker` held it back (else a no-op). */
  startWorker(): void;
}

/**
 * Herald's worker in this thread, sending to the stack's relay, and a new account.
 * `deferWorker`: the worker is built but polls only once `startWorker()` is called (an intake
 * measured on its own). `taskQueue`: a second Herald on the same Temporal (the migrate bench's source).
 */
export async function startBenchHerald(stack: BenchStack, teardown: Teardown, options: { deferWorker?: boolean; taskQueue?: string } = {}): Promise<BenchHerald> {
  const herald = composeBenchHerald(stack, teardown, { HERALD_MONGODB_DATABASE: 'herald_bench', HERALD_TASK_QUEUE: options.taskQueue ?? 'herald-bench' });
  const { config } = herald;
  const worker = await herald.worker();
  const startWorker = () => { void worker.run(); };
  if (!options.deferWorker) startWorker();
  const { account, apiKey, transactionalKey } = await createAccount(await herald.store(), `bench${newId().slice(0, 8).toLowerCase().replace(/[^a-z0-9]/g, '')}`);
  return {
    herald, config, store: await herald.store(), account, apiKey, transactionalKey, startWorker,
    listenerTemporal: { address: stack.temporal.address, namespace: config.temporalNamespace, taskQueue: config.taskQueue},
  };
}
