// The workflow code of the tests' Temporal workers: bundled once per run by the global setup.
import fs from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';

const WORKFLOWS = require.resolve('../../workflows');

/** Bundles the workflows (the TypeScript sources) into `file`; returns its path. */
export async function bundleTestWorkflows(file: string): Promise<string> {
  const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS, logger: silent });
  fs.writeFileSync(file, code);
  return file;
}

/**
 * Worker.create's workflow options for a file that makes a worker per test: the run's bundle, run
 * on the test's own thread (the SDK's debugMode) rather than on a worker thread whose start loads
 * the SDK again (~0.75 CPU-s a worker: send-workflows.test's ten took 24 CPU-s, now 16.5). Such a
 * file calls releaseWorkflowHooks after its tests.
 */
export function testWorkerOptions(): ReturnType<typeof testWorkflowCode> & { debugMode: true } {
  return { ...testWorkflowCode(), debugMode: true };
}

/**
 * Removes what a worker in debugMode (testWorkerOptions, and every replay) installs for the whole
 * process, which the SDK never removes (it expects a thread of its own): a promise hook that runs
 * for every promise of the jest worker from then on, the files after included (each promise cost
 * ~5 times as much, measured), and Error.prepareStackTrace. A file that ran one calls this after.
 */
export function releaseWorkflowHooks(): void {
  (require('@temporalio/worker/lib/workflow/vm-shared') as typeof import('@temporalio/worker/lib/workflow/vm-shared')).globalHandlers.uninstall();
}

/** The workflow code alone (what a replay takes): the run's bundle, or the sources when there is none. */
export function testWorkflowCode(): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  const bundle = process.env.HERALD_WORKFLOW_BUNDLE;
  return bundle ? { workflowBundle: { codePath: bundle } } : { workflowsPath: WORKFLOWS };
}
