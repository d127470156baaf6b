// Runs after `npm ci`/`npm install` in this project: builds dist/ so `npx herald` and
// `npm start` work at once. Skipped where TypeScript is absent (production installs
// copy a prebuilt dist/).
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
} catch {
  process.exit(0);
}
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
process.exit(result.status ?? 1);
