// Starts the real stack once for the whole suite: the Temporal dev server and the embedded
// store (memory backend). With MONGODB_URI / TEMPORAL_ADDRESS set, those are used instead.
// Addresses reach the test files through the environment.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedStore } from '../../infra/store';
import { startEmbeddedTemporal } from '../../infra/temporal';

export default async function globalSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-test-'));
  const stops: Array<() => Promise<void>> = [];
  const started = await Promise.allSettled([
    process.env.MONGODB_URI ? undefined : startEmbeddedStore({ file: null, logFile: path.join(dir, 'store.log') }),
    process.env.TEMPORAL_ADDRESS ? undefined : startEmbeddedTemporal({ dbFile: null, logFile: path.join(dir, 'temporal.log') }),
  ]);
  // One failed: stop the other, or it outlives the run (jest skips the teardown after a failed setup).
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value?.stop() : undefined)));
    throw failed.reason;
  }
  const [store, temporal] = started.map((s) => (s as PromiseFulfilledResult<unknown>).value) as [
    Awaited<ReturnType<typeof startEmbeddedStore>> | undefined, Awaited<ReturnType<typeof startEmbeddedTemporal>> | undefined];
  if (store) {
    process.env.MONGODB_URI = store.uri;
    stops.push(store.stop);
  }
  if (temporal) {
    process.env.TEMPORAL_ADDRESS = temporal.address;
    stops.push(temporal.stop);
  }
  process.env.HERALD_TEST_DIR = dir;
  (globalThis as { __heraldStack?: unknown }).__heraldStack = { stops, dir };
}
