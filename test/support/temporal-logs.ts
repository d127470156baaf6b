// The Temporal SDK's warnings during tests ("Activity failed" for the failures a test provokes,
// "Task not found when completing" once a worker stopped, …) are expected noise while tests pass
// and evidence when one fails. So the test files' runtime keeps them in a buffer of the test file,
// and the test environment (test/support/test-environment.ts) prints the ones logged since the
// previous test only when a test or hook failed.
import { DefaultLogger, Runtime, makeTelemetryFilterString, type LogEntry } from '@temporalio/worker';
import { keepTemporalLog } from './temporal-log-buffer';

/** The global whose buffer the lines go to: the test file's, or the running file's for a jest worker's shared stack. */
let logsGlobal: object = globalThis;

/** The shared stack's SDK (./worker-stack.ts) logs into the buffer of the file now running. */
export function sendTemporalLogsTo(fileGlobal: object): void {
  logsGlobal = fileGlobal;
}

const keep = (entry: LogEntry) =>
  keepTemporalLog(logsGlobal, JSON.stringify({ name: 'temporal', level: entry.level.toLowerCase(), msg: entry.message, ...entry.meta }));

/** The SDK's logger for tests, at warn level into the buffer: the runtime's, and MockActivityEnvironment's `logger`. */
export const testTemporalLogger = new DefaultLogger('WARN', keep);

let installed = false;
/**
 * Installs the SDK's runtime for this test file (each file has its own module registry, so its
 * own runtime): warn level as in production, the native core's logs forwarded, all into the buffer.
 */
export function installTestTemporalRuntime(): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    logger: testTemporalLogger,
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
  });
}
