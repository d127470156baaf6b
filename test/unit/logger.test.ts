// A log line that cannot be written never ends the process: stdout on /dev/full (every write
// fails with ENOSPC, as on a full disk) and the process logs, goes on, and exits normally.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../adapters/project-root';

const logger = path.join(projectRoot, 'dist/adapters/logger.js');

it('drops log lines it cannot write (a full disk) instead of crashing the process', () => {
  const full = fs.openSync('/dev/full', 'w');
  try {
    const script = `const log = require(${JSON.stringify(logger)}).createLogger('info', 'full');
      for (let i = 0; i < 50; i += 1) log.info({ i }, 'a line for a full disk');
      setTimeout(() => { log.warn('still here'); process.stderr.write('alive'); }, 50);`;
    const run = spawnSync(process.execPath, ['-e', script], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', timeout: 30_000 });
    expect(run.stderr).toBe('alive');
    expect(run.status).toBe(0);
  } finally {
    fs.closeSync(full);
  }
});
