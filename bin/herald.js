#!/usr/bin/env node
// The `herald` command. `npm ci` builds dist/ (postinstall), so this works right after it.
try {
  require.resolve('../dist/cli/main.js');
} catch {
  process.stderr.write('herald: dist/ is missing; run `npm run build` (npm ci does it for you).\n');
  process.exit(1);
}
require('../dist/cli/main.js');
