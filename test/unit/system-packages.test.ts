// The setup step's system packages (infra/system-packages.ts): what is missing, nothing done when
// all are present, and a message naming the package where it cannot install. The apt-get path
// itself runs in `npm test`'s setup on a fresh machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installSystemPackages, missingSystemPackages, TEST_SYSTEM_PACKAGES } from '../../infra/system-packages';

const absent = { command: 'herald-no-such-command', debian: 'herald-no-such-package', usedBy: 'no test' };
const node = { command: path.basename(process.execPath), debian: 'nodejs', usedBy: 'every test' };

it('lists swaks among the packages the tests need', () => {
  expect(TEST_SYSTEM_PACKAGES.map((p) => p.debian)).toContain('swaks');
});

it('lists Dovecot (dovecot-imapd), found in /usr/sbin even off PATH, for the bounce mailbox tests', () => {
  const dovecot = TEST_SYSTEM_PACKAGES.find((p) => p.command === 'dovecot');
  expect(dovecot).toMatchObject({ debian: 'dovecot-imapd', dirs: ['/usr/sbin'] });
});

it('finds only the commands that are not on PATH', () => {
  expect(missingSystemPackages([node, absent])).toEqual([absent]);
});

it('does nothing when every command is present', async () => {
  await expect(installSystemPackages([node])).resolves.toEqual([]);
});

describe('without apt-get on PATH', () => {
  const saved = process.env.PATH;
  let dir: string;
  beforeEach(() => {
    // A PATH holding node alone: no apt-get, so nothing is installed whoever runs the test.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-path-'));
    fs.symlinkSync(process.execPath, path.join(dir, node.command));
    process.env.PATH = dir;
  });
  afterEach(() => {
    process.env.PATH = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names the missing command, its Debian package and the tests that use it', async () => {
    await expect(installSystemPackages([node, absent])).rejects.toThrow(
      /herald-no-such-command \(Debian package "herald-no-such-package"\), used by no test\n.*apt-get install herald-no-such-package/);
  });
});
