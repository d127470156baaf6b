// One Herald stack per jest worker, shared by the test files the worker runs one after another
// (test/support/herald.ts hands it to the files that take the defaults). It lives outside the
// files' module registries: the test environment (./test-environment.ts) loads this module in the
// worker's own realm, where it stays from one file to the next, so the stack's modules load and
// its parts start once per worker instead of once per file. The stack ends with the worker
// process; the global teardown then stops the store and Temporal it used.
import { newId } from '../../core/shared/ids';
import { createLogger } from '../../adapters/logger';
import { startStack, type RunningStack } from './own-stack';
import { sendTemporalLogsTo } from './temporal-logs';

/** What a test file sees of the shared stack (its store and Temporal client are the file's own). */
export type WorkerStack = Pick<RunningStack, 'baseUrl' | 'smtpPort' | 'database' | 'config' | 'herald' | 'sink'>;

let started: Promise<WorkerStack> | undefined;

/** jest-worker's message that asks a worker process to end (jest-worker/build/types.js). */
const CHILD_MESSAGE_END = 2;

/**
 * The stack's connections, threads and servers would keep the worker process alive past jest's
 * request to end (jest then kills it and warns of a leak): the process exits there instead. Its
 * store and Temporal are the suite's, stopped by the global teardown; its database goes with the store.
 */
function exitWhenJestEnds(): void {
  process.on('message', (message) => {
    if (Array.isArray(message) && message[0] === CHILD_MESSAGE_END) process.exit(0);
  });
}

/**
 * The shared stack logs its faults (a request answered 500, a failed activity) on the worker's
 * stderr, which jest passes on: a test that met one then has its cause in the run's output. An
 * unavailable refusal (HTTP 503, SMTP 451) is what tests ask for (a quota reached, a store cut): left out.
 */
function faultsOnStderr() {
  return createLogger('error', 'herald-test-stack', {
    dest: 2,
    hooks: {
      logMethod(args, log) {
        const record = args[0] as { status?: unknown; err?: { code?: unknown } } | undefined;
        if (record?.status !== 503 && record?.err?.code !== 'SERVICE_UNAVAILABLE') log.apply(this, args); // HTTP's 503, SMTP's 451
      },
    },
  });
}

/** The worker's stack, started on the first file's request; `fileGlobal` is the asking file's global, where the stack's Temporal SDK logs go from now. */
export function workerStack(fileGlobal: object): Promise<WorkerStack> {
  sendTemporalLogsTo(fileGlobal);
  if (!started && process.send) exitWhenJestEnds(); // a child process of jest's, not a run in band
  if (!started) {
    const starting = startStack(`herald_worker_${newId().slice(0, 10)}`, { logger: faultsOnStderr() });
    started = starting.catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    // Run in band (one file, or -i), the stack is in jest's own process: the global teardown ends it.
    (globalThis as { [STOP_IN_BAND]?: () => Promise<void> })[STOP_IN_BAND] = async () => (await starting).stop();
  }
  return started;
}

/** Where the stack leaves its stop for the global teardown (./global-teardown.ts), in the process's realm. */
export const STOP_IN_BAND = Symbol.for('herald.test.stopWorkerStack');
