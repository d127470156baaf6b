// Bench-only workflows (bundled into the sandbox: import only @temporalio/workflow).
import { condition, defineSignal, setHandler } from '@temporalio/workflow';

/** Does nothing: its rate is the server's floor cost of one workflow (start, one task, complete). */
export async function BenchNoop(): Promise<void> {
  // intentionally empty
}

export const hitSignal = defineSignal('hit');
/** Tells the counter how many hits to wait for (when some calls failed and the limit will not be reached). */
export const totalSignal = defineSignal<[{ total: number }]>('total');

/** Counts `hit` signals; ends once it has `limit` of them, or the number a `total` signal names. */
export async function BenchSignalCounter(input: { limit: number }): Promise<{ received: number }> {
  let received = 0;
  let total = input.limit;
  setHandler(hitSignal, () => { received += 1; });
  setHandler(totalSignal, (signal) => { total = signal.total; });
  await condition(() => received >= total);
  return { received };
}
