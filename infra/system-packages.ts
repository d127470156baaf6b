// The system (Debian) packages the tests need beyond npm packages and .tools/: a real client
// or browser a test drives. `npm test` brings them through the setup step (setup-main.ts).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { findExecutable } from './executables';

const execFileAsync = promisify(execFile);

export interface SystemPackage {
  /** The command a test runs, looked for on PATH. */
  command: string;
  /** The Debian package that provides it. */
  debian: string;
  /** Which tests use it, for the message when it cannot be installed. */
  usedBy: string;
  /** Folders to look in before PATH (a daemon in /usr/sbin, which a user's PATH may lack). */
  dirs?: string[];
}

/** Debian's headless Chromium (the chromium-headless-shell package), which Playwright drives. */
export const HEADLESS_CHROMIUM = 'chromium-headless-shell';

/** One line per package: a later browser is one more line. */
export const TEST_SYSTEM_PACKAGES: readonly SystemPackage[] = [
  { command: 'swaks', debian: 'swaks', usedBy: 'the SMTP submission tests (one of their three real clients)' },
  // Usually present already (ca-certificates, which the JDK pulls in, depends on it).
  { command: 'openssl', debian: 'openssl', usedBy: 'the SMTP STARTTLS test (a throwaway certificate)' },
  // Playwright (playwright-core) drives the system's Chromium: no browser is downloaded. The
  // headless shell, not the full browser: the console tests took 11-21% less CPU with it (130-146
  // against 164 CPU-s for test/browser, 93-110 against 140 s of wall time), same pages, same checks.
  { command: HEADLESS_CHROMIUM, debian: 'chromium-headless-shell', usedBy: 'the console tests (test/browser, through Playwright) and the console-contacts benchmark' },
  // A real IMAP server (dovecot-core comes with it); the tests run their own, on a free loopback port.
  { command: 'dovecot', debian: 'dovecot-imapd', usedBy: 'the bounce mailbox tests (a real IMAP server)', dirs: ['/usr/sbin'] },
  // Debian's SpamAssassin 4 with its shipped rules, run with local tests only (no network).
  { command: 'spamassassin', debian: 'spamassassin', usedBy: 'the spam rules test (Herald\'s default messages scored)' },
];

/** The packages whose command is not on PATH. */
export function missingSystemPackages(packages: readonly SystemPackage[] = TEST_SYSTEM_PACKAGES): SystemPackage[] {
  return packages.filter((p) => !findExecutable(p.command, p.dirs));
}

/**
 * Installs the missing ones with apt-get when running as root on a system that has it; otherwise
 * throws a message naming each package and the command that installs it. Quick when all are present.
 */
export async function installSystemPackages(packages: readonly SystemPackage[] = TEST_SYSTEM_PACKAGES): Promise<SystemPackage[]> {
  const missing = missingSystemPackages(packages);
  if (missing.length === 0) return [];
  const names = missing.map((p) => p.debian);
  const apt = findExecutable('apt-get');
  if (!apt || process.getuid?.() !== 0) {
    const list = missing.map((p) => `  ${p.command} (Debian package "${p.debian}"), used by ${p.usedBy}`).join('\n');
    const how = apt
      ? `Install as root: sudo apt-get install ${names.join(' ')}`
      : `Install ${names.length > 1 ? 'them' : 'it'} with your system's package manager (Debian/Ubuntu: apt-get install ${names.join(' ')})`;
    throw new Error(`The tests need commands that are not installed:\n${list}\n${how}, then run the tests again.`);
  }
  console.log(`setup: installing ${names.join(', ')} with apt-get (needed by the tests)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run(apt, ['update', '-qq'], env);
  await run(apt, ['install', '-y', '-qq', ...names], env);
  const still = missingSystemPackages(missing);
  if (still.length > 0) {
    throw new Error(`apt-get installed ${names.join(' ')}, but ${still.map((p) => p.command).join(', ')} is still not on PATH (${process.env.PATH}).`);
  }
  return missing;
}

/** Runs apt-get quietly; on failure its last lines say what went wrong (a dpkg lock, no network). */
async function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  try {
    await execFileAsync(command, args, { env, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    const output = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`${command} ${args.join(' ')} failed: ${e.message.split('\n')[0]}\n${output}`);
  }
}
