// Starts the real stack once for the whole suite: the Temporal dev server, the embedded
// store (memory backend) and the console tests' browser (Chromium). With MONGODB_URI / TEMPORAL_ADDRESS set, those are used instead.
// Addresses reach the test files through the environment. Meanwhile it bundles the workflow code
// once (HERALD_WORKFLOW_BUNDLE, as the Docker image does), so that the workers of the test files
// load it instead of each bundling it again (seconds of CPU per worker). The end-to-end tests'
// processes get an environment of their own and still bundle at start, as `npm start` does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedStore } from '../../infra/store';
import { startEmbeddedTemporal } from '../../infra/temporal';
import { bundleTestWorkflows } from './workflow-bundle';
import { launchBrowserServer } from './browser';

export default async function globalSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-test-'));
  const stops: Array<() => Promise<void>> = [];
  const started = await Promise.allSettled([
    process.env.MONGODB_URI ? undefined : startEmbeddedStore({ file: null, logFile: path.join(dir, 'store.log') }),
    process.env.TEMPORAL_ADDRESS ? undefined : startEmbeddedTemporal({ dbFile: null, logFile: path.join(dir, 'temporal.log') }),
    process.env.HERALD_WORKFLOW_BUNDLE ? undefined : bundleTestWorkflows(path.join(dir, 'workflow-bundle.js')),
    launchBrowserServer(),
  ]);
  // One failed: stop the others, or they outlive the run (jest skips the teardown after a failed setup).
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((s) => {
      if (s.status !== 'fulfilled' || typeof s.value !== 'object') return undefined;
      const value = s.value as { stop?: () => Promise<void>; close?: () => Promise<void> };
      return value.stop ? value.stop() : value.close?.();
    }));
    throw failed.reason;
  }
  const [store, temporal, bundle, browser] = started.map((s) => (s as PromiseFulfilledResult<unknown>).value) as [
    Awaited<ReturnType<typeof startEmbeddedStore>> | undefined, Awaited<ReturnType<typeof startEmbeddedTemporal>> | undefined, string | undefined,
    Awaited<ReturnType<typeof launchBrowserServer>>];
  if (store) {
    process.env.MONGODB_URI = store.uri;
    stops.push(store.stop);
  }
  if (temporal) {
    process.env.TEMPORAL_ADDRESS = temporal.address;
    stops.push(temporal.stop);
  }
  if (bundle) process.env.HERALD_WORKFLOW_BUNDLE = bundle;
  process.env.HERALD_BROWSER_WS = browser.wsEndpoint(); // the console tests' one browser (test/support/browser.ts)
  stops.push(() => browser.close());
  process.env.HERALD_TEST_DIR = dir;
  (globalThis as { __heraldStack?: unknown }).__heraldStack = { stops, dir };
}
