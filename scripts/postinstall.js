// Runs after `npm ci`/`npm install` in this project: builds dist/ so `npx herald` and
// `npm start` work at once, and the console (dist/console). Skipped where TypeScript is absent (production installs
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
const result = spawnSync(process.execPath, [tsc, '-b', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
if (result.status !== 0) process.exit(result.status ?? 1);
const bundle = spawnSync(process.execPath, [path.join(__dirname, 'build-console.js')], { stdio: 'inherit', cwd: root });
process.exit(bundle.status ?? 1);
