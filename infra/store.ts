// The embedded MongoDB-wire-protocol store (DESIGN.md, "Infrastructure, embedded by default"):
// mongo-java-server with its H2 MVStore backend, run by our launcher infra/store/HeraldStore.java.
// Jars come from Maven Central via infra/store/pom.xml; everything lands in <toolsDir>/store.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ChildExit, startChild } from './child';
import { findExecutable } from './executables';
import { projectRoot } from '../adapters/project-root';
import { toolsDir } from './paths';
import { freePort, isListening, startOnFreePorts } from './ports';

const run = promisify(execFile);

const HOST = '127.0.0.1';
const sourceDir = path.join(projectRoot, 'infra', 'store');
const pomFile = path.join(sourceDir, 'pom.xml');
const storeDir = path.join(toolsDir, 'store');
const libDir = path.join(storeDir, 'lib');
const classesDir = path.join(storeDir, 'classes');
const stampFile = path.join(storeDir, 'installed.sha256');
const lockDir = path.join(storeDir, '.install.lock');

/** A JDK tool: from JAVA_HOME when set (as Maven does), else from PATH; null when absent. */
function findTool(name: string): string | null {
  return findExecutable(name, process.env.JAVA_HOME && name !== 'mvn' ? [path.join(process.env.JAVA_HOME, 'bin')] : []);
}

function requireTools<T extends string>(...names: T[]): Record<T, string> {
  const found = {} as Record<T, string>;
  const missing: string[] = [];
  for (const name of names) {
    const where = findTool(name);
    if (where) found[name] = where; else missing.push(name);
  }
  if (missing.length > 0) {
    throw new Error(
      `The embedded MongoDB store needs ${missing.join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not on PATH ` +
      `(or in JAVA_HOME/bin). Install a JDK 17 and Maven (e.g. "apt-get install openjdk-17-jdk-headless maven"), ` +
      'or set MONGODB_URI to use a real MongoDB instead.',
    );
  }
  return found;
}

/** The launcher's sources: every .java file beside the pom (HeraldStore.java is the main class). */
function launcherSources(): string[] {
  return fs.readdirSync(sourceDir).filter((f) => f.endsWith('.java')).sort().map((f) => path.join(sourceDir, f));
}

/** What the installed files were built from: the pom and the launcher sources, names included. */
function sourceHash(): string {
  const hash = crypto.createHash('sha256');
  for (const file of [pomFile, ...launcherSources()]) {
    hash.update(path.basename(file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function isInstalled(hash: string): boolean {
  try {
    return fs.readFileSync(stampFile, 'utf8').trim() === hash
      && fs.existsSync(path.join(classesDir, 'HeraldStore.class'))
      && fs.readdirSync(libDir).some((f) => f.endsWith('.jar'));
  } catch {
    return false;
  }
}

/**
 * Cross-process lock (jest workers, `npm start` beside a test run): mkdir is atomic.
 * A lock older than 10 minutes is taken to be left over from a killed install.
 */
async function withInstallLock<T>(work: () => Promise<T>): Promise<T> {
  fs.mkdirSync(storeDir, { recursive: true });
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (fs.statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 10 * 60_000) fs.rmSync(lockDir, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`Timed out waiting for another store install (${lockDir})`);
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

async function runTool(what: string, command: string, args: string[]): Promise<void> {
  try {
    await run(command, args, { cwd: projectRoot, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    const output = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(`${what} failed: ${e.message.split('\n')[0]}\n${output}`);
  }
}

let installing: Promise<void> | null = null;

/**
 * Fetches the store's jars with Maven and compiles the launcher into <toolsDir>/store,
 * unless the stamp says that was already done for the current pom.xml and launcher sources.
 */
export async function installStore(): Promise<void> {
  const hash = sourceHash();
  if (isInstalled(hash)) return;
  // One install per process at a time; other processes wait on the lock below.
  installing ??= withInstallLock(async () => {
    if (isInstalled(hash)) return; // another process finished it while we waited
    const tools = requireTools('java', 'javac', 'mvn');
    const buildDir = path.join(storeDir, 'build');
    // Start clean: copy-dependencies never deletes, and stale jars (say, a second h2) on the
    // classpath would be picked up by the lib/* wildcard.
    fs.rmSync(stampFile, { force: true });
    for (const dir of [libDir, classesDir]) fs.rmSync(dir, { recursive: true, force: true });
    try {
      await runTool('Fetching the store jars with Maven', tools.mvn, [
        '-q', '-B', '-f', pomFile, 'dependency:copy-dependencies',
        `-DoutputDirectory=${libDir}`,
        `-DbuildDirectory=${buildDir}`, // keeps Maven's target/ out of the source tree
      ]);
    } finally {
      fs.rmSync(buildDir, { recursive: true, force: true });
    }
    await runTool('Compiling the store launcher', tools.javac, [
      '--release', '17', '-encoding', 'UTF-8', '-nowarn',
      '-cp', path.join(libDir, '*'), '-d', classesDir, ...launcherSources(),
    ]);
    fs.writeFileSync(stampFile, `${hash}\n`);
  }).finally(() => { installing = null; });
  return installing;
}

export interface EmbeddedStore {
  /** Process id, recorded so a later start can end what a crashed one left running. */
  pid: number;
  /** `mongodb://127.0.0.1:<port>/`; the database name is chosen by the caller. */
  uri: string;
  port: number;
  /** SIGTERM (the store closes its file cleanly), SIGKILL only after a 20 s grace. */
  stop(): Promise<void>;
  /** Settles when the store process ends, for whatever reason, so a caller can supervise it. */
  exited: Promise<ChildExit>;
}

/** One concrete step for the user, from what the launcher printed (HeraldStore.openFailure). */
function recoveryStep(output: string, file: string | null, port: number, spawnError?: NodeJS.ErrnoException): string {
  if (spawnError?.code === 'ENOENT') return 'install a JDK 17 (e.g. "apt-get install openjdk-17-jdk-headless") or set JAVA_HOME.';
  const dir = file ? path.dirname(file) : '';
  switch (/cannot open .* \((locked|unreadable|format|too deep|corrupt|disk full)\):/.exec(output)?.[1]) {
    case 'locked':
      return `another store uses the data folder ${dir} (a running Herald or herald command): stop it, then start again.`;
    case 'unreadable':
      return `make ${file} readable and writable by this user (ls -l "${file}"), then start again.`;
    case 'format':
      return `${file} was written by another H2 version (Herald pins 2.3.232): use the Herald version that wrote it, or restore a backup.`;
    case 'disk full':
      return `free space on the disk of ${dir} (df -h "${dir}"): the store opens its file only with 64 MB free, so that it never writes it on a full disk; under npm start it starts by itself once there is room.`;
    case 'too deep':
    case 'corrupt':
      return `restore ${file} from a backup; or, to start over with an empty store, move it aside: mv "${file}" "${file}.broken"`;
  }
  if (output.includes('cannot listen on')) return `port ${port} was taken meanwhile: start again, or free the port.`;
  if (output.includes('cannot create ')) return `create the data folder ${dir} or make its parent writable.`;
  if (/Could not reserve enough space|insufficient memory/.test(output)) return 'free some memory: the store runs Java with a 1 GB heap.';
  return 'read the log lines below; the store\'s own message starts with "herald-store:".';
}

/** What startEmbeddedStore takes. */
export interface EmbeddedStoreOptions {
  file: string | null; port?: number; logFile: string;
  /** The file format of stores before infra/store/NativeKeyBackend.java (old index order, Java-serialised values): for its test only. */
  legacyFormat?: boolean;
  /** Free MB the file's disk must have for the store to open it (HeraldStore.java; 64 by default): for a test of the refusal. */
  minFreeMb?: number;
  /**
   * A store that lives for one command or one test: the JVM compiles with its quick compiler only,
   * which costs a second less CPU to start (measured: 1.6 against 2.5 s to start and take 200
   * writes) and more per request once warm; a long-running store keeps the optimising compiler.
   */
  shortLived?: boolean;
}

/**
 * Starts the embedded store on an H2 file, or with `file: null` on the memory backend.
 * `findFreePort`: where an unset port comes from (a test hands out a taken one first); a given
 * port is never traded for another.
 */
export async function startEmbeddedStore(opts: EmbeddedStoreOptions, findFreePort = freePort): Promise<EmbeddedStore> {
  await installStore();
  return startOnFreePorts(
    async () => startOn(opts.port ?? await findFreePort(HOST), opts),
    (error) => opts.port === undefined && (error as { portTaken?: boolean }).portTaken === true,
  );
}

async function startOn(port: number, opts: EmbeddedStoreOptions): Promise<EmbeddedStore> {
  const { java } = requireTools('java');
  if (opts.port !== undefined && await isListening(HOST, port)) {
    throw new Error(`Cannot start the embedded store: ${HOST}:${port} is already in use.\n` +
      'What to do: stop the process listening there (a store an earlier start left running?), then start again.');
  }
  const file = opts.file === null ? null : path.resolve(opts.file);
  if (file) fs.mkdirSync(path.dirname(file), { recursive: true });

  const child = startChild({
    name: 'store',
    command: java,
    args: [
      // Thread stacks, measured with nested documents {a: {a: ...}} (JDK 17, H2 2.3.232): with the
      // default 1 MB, ~400 levels were stored but could not be read back at start (the store would
      // not start again) and ~470 overflowed the MVStore writer (store closed, document lost); at
      // 8 MB, 2,800 levels are stored, committed and read back at restart (3,200 fail at restart).
      // MongoDB allows 100 (commands 200, enforced by DepthLimit.java): a 14x margin, which costs
      // address space only.
      '-Xss8m',
      '-Xmx1g',
      // Out of memory, a thread may have died half-way: exit and let the supervisor restart the store
      // (every acknowledged write is already in the file).
      '-XX:+ExitOnOutOfMemoryError',
      ...(opts.shortLived ? ['-XX:TieredStopAtLevel=1'] : []),
      '-cp', `${classesDir}${path.delimiter}${path.join(libDir, '*')}`,
      'HeraldStore', '--host', HOST, '--port', String(port),
      ...(file ? ['--file', file] : ['--memory']),
      ...(opts.legacyFormat ? ['--legacy-format'] : []),
      ...(opts.minFreeMb !== undefined ? ['--min-free-mb', String(opts.minFreeMb)] : []),
    ],
    logFile: opts.logFile,
    pipeOutput: true, // its "ready" line and its reasons must arrive even when the data folder's disk is full
  });
  let spawnError: NodeJS.ErrnoException | undefined; // java not found, say
  child.process.once('error', (err) => { spawnError = err; });

  let exit: ChildExit | undefined;
  void child.exited.then((e) => { exit = e; });
  try {
    // Opening a big H2 file takes a few seconds; 60 s leaves room for slow disks. Stops polling as
    // soon as the JVM exits (file locked by another store, port taken): no waiting out the timeout.
    // Ready when the store says so: a port merely listening may be another process's.
    const deadline = Date.now() + 60_000;
    const ready = `herald-store ready ${HOST}:${port}`;
    while (!child.output().includes(ready)) {
      if (exit) throw new Error(spawnError ? spawnError.message : `the store process exited (code ${exit.code}, signal ${exit.signal})`);
      if (Date.now() > deadline) throw new Error(`it did not listen on ${HOST}:${port} within 60 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (err) {
    await child.stop(5_000);
    const output = child.output();
    throw Object.assign(new Error(
      `Could not start the embedded MongoDB store (${file ?? 'memory'}): ${(err as Error).message}\n` +
      `What to do: ${recoveryStep(output, file, port, spawnError)}\n` +
      `Last lines it printed (also in ${opts.logFile}):\n${output.trimEnd().split('\n').slice(-20).join('\n')}`,
    ), { portTaken: output.includes('cannot listen on') });
  }

  return {
    uri: `mongodb://${HOST}:${port}/`,
    port,
    pid: child.process.pid ?? 0,
    stop: () => child.stop(20_000),
    exited: child.exited,
  };
}
