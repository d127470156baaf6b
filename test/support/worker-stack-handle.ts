// How a test file reaches its jest worker's shared stack: a function the test environment puts
// on the file's global (./test-environment.ts), absent where jest runs without it.
import type { WorkerStack } from './worker-stack';

export const WORKER_STACK = '__heraldWorkerStack';

/** The worker's shared stack, or undefined outside the suite's test environment. */
export function workerStackGetter(): (() => Promise<WorkerStack>) | undefined {
  return (globalThis as { [WORKER_STACK]?: () => Promise<WorkerStack> })[WORKER_STACK];
}
