import fs from 'node:fs';

/** test/support/worker-stack.ts's STOP_IN_BAND, not imported: importing it would load a whole Herald here. */
const STOP_WORKER_STACK = Symbol.for('herald.test.stopWorkerStack');

export default async function globalTeardown(): Promise<void> {
  // A run in band started a shared stack in this process: it stops before the store and Temporal it uses.
  await (globalThis as { [STOP_WORKER_STACK]?: () => Promise<void> })[STOP_WORKER_STACK]?.();
  const stack = (globalThis as { __heraldStack?: { stops: Array<() => Promise<void>>; dir: string } }).__heraldStack;
  if (!stack) return;
  await Promise.all(stack.stops.map((stop) => stop()));
  fs.rmSync(stack.dir, { recursive: true, force: true });
}
