// Prebuilds the Temporal workflow bundle (used by the Docker image): workers then load
// dist/workflow-bundle.js instead of bundling workflow code at every start.
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

async function main() {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows') });
  const target = path.resolve(__dirname, '..', 'workflow-bundle.js');
  fs.writeFileSync(target, code);
  console.log(`wrote ${target} (${Math.round(code.length / 1024)} KiB)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
