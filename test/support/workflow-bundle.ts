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

/** Worker.create's workflow option: the run's bundle, or the sources when there is none. */
export function testWorkflowCode(): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  const bundle = process.env.HERALD_WORKFLOW_BUNDLE;
  return bundle ? { workflowBundle: { codePath: bundle } } : { workflowsPath: WORKFLOWS };
}
