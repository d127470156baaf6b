// (a) What the embedded Temporal dev server does on its own: no-op workflows completed per
// second, and signalWithStart calls per second into one workflow. DESIGN.md's gathering rule
// (signal into a batch workflow, never a workflow per recipient) rests on the gap between them.
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { connectTemporal } from '../adapters/temporal/client';
import { newId } from '../core/shared/ids';
import { startEmbeddedTemporal } from '../infra/temporal';
import { perSecond, round } from './stats';
import { log, runPool, Teardown, within } from './support';
import { BenchNoop, BenchSignalCounter, hitSignal, totalSignal } from './workflows';

const NAMESPACE = 'default';

/** A worker for bench/workflows.ts in this process; bundling takes a few seconds, outside any measurement. */
export async function startBenchWorker(address: string, taskQueue: string, teardown: Teardown): Promise<void> {
  const connection = await NativeConnection.connect({ address });
  teardown.defer('bench worker connection', () => connection.close());
  const worker = await Worker.create({ connection, namespace: NAMESPACE, taskQueue, workflowsPath: require.resolve('./workflows') });
  const running = worker.run();
  teardown.defer('bench worker', async () => { worker.shutdown(); await running; });
}

/** Starts `count` no-op workflows (at most `concurrency` in flight) and waits for every result. */
export async function measureNoopWorkflows(client: Client, taskQueue: string, count = 300, concurrency = 50) {
  const run = newId().slice(0, 8);
  const started = performance.now();
  const pool = await runPool(count, concurrency, 120_000, (i) =>
    client.workflow.execute(BenchNoop, { taskQueue, workflowId: `bench-noop-${run}-${i}` }));
  const ms = performance.now() - started;
  return {
    workflows_per_s: perSecond(pool.results.length, ms),
    workflows: pool.results.length,
    workflow_concurrency: concurrency,
    workflow_errors: count - pool.results.length, // failed, or unfinished at the deadline
    ...(pool.firstError ? { workflow_first_error: pool.firstError } : {}),
  };
}

/** `count` signalWithStart calls into one counting workflow; then waits for it to have seen them all. */
export async function measureSignalWithStart(client: Client, taskQueue: string, count = 2000, concurrency = 50) {
  const workflowId = `bench-signals-${newId().slice(0, 8)}`;
  const started = performance.now();
  const pool = await runPool(count, concurrency, 120_000, () => client.workflow.signalWithStart(BenchSignalCounter, {
    taskQueue, workflowId, args: [{ limit: count }], signal: hitSignal, signalArgs: [],
  }));
  const callsDone = performance.now();
  const handle = client.workflow.getHandle<typeof BenchSignalCounter>(workflowId);
  // Failed calls will never arrive: tell the workflow how many did, so it can end.
  if (pool.results.length < count) await handle.signal(totalSignal, { total: pool.results.length }).catch(() => undefined);
  const result = await within(handle.result(), 60_000, 'signal counter result').catch((error: Error) => {
    log(`signal counter: ${error.message}`);
    return undefined;
  });
  const processedMs = performance.now() - started;
  return {
    signal_with_start_per_s: perSecond(pool.results.length, callsDone - started),
    signals: pool.results.length,
    signal_concurrency: concurrency,
    signal_errors: count - pool.results.length,
    ...(pool.firstError ? { signal_first_error: pool.firstError } : {}),
    signals_received_by_workflow: result?.received ?? null,
    signals_processed_per_s: result ? perSecond(result.received, processedMs) : null,
  };
}

export async function runTemporalBare(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const dir = teardown.tempDir('herald-bench-temporal-');
    log('temporal-bare: starting the Temporal dev server (SQLite file, WAL)');
    const temporal = await startEmbeddedTemporal({ dbFile: path.join(dir, 'temporal.db'), logFile: path.join(dir, 'temporal.log') });
    teardown.defer('temporal', () => temporal.stop());
    const client = await connectTemporal(temporal.address, NAMESPACE);
    teardown.defer('temporal client', () => client.connection.close());
    const taskQueue = 'bench-bare';
    await startBenchWorker(temporal.address, taskQueue, teardown);
    // One workflow before timing, so the first-workflow costs (worker poll, cache) stay out of the figures.
    await within(client.workflow.execute(BenchNoop, { taskQueue, workflowId: `bench-warmup-${newId().slice(0, 8)}` }), 60_000, 'warm-up workflow');
    log('temporal-bare: no-op workflows');
    const noop = await measureNoopWorkflows(client, taskQueue);
    log(`temporal-bare: ${noop.workflows_per_s} workflows/s; signalWithStart`);
    const signals = await measureSignalWithStart(client, taskQueue);
    return {
      scenario: 'temporal-bare',
      ...noop,
      ...signals,
      signal_to_workflow_ratio: round(signals.signal_with_start_per_s / noop.workflows_per_s, 2),
      notes: 'temporal server start-dev, SQLite file with journal_mode=wal and synchronous=normal; worker in-process; ' +
        'workflows_per_s = no-op workflows started and completed (execute per slot) per second; ' +
        'signal_with_start_per_s = acknowledged calls into one workflow per second',
    };
  } finally {
    await teardown.run();
  }
}
