import { spawn, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { onExit } from 'signal-exit';

export interface ChildHandle {
  name: string;
  process: ChildProcess;
  /** SIGTERM, then SIGKILL if it has not exited after graceMs. */
  stop(graceMs?: number): Promise<void>;
  /** Settles when the process ends, for whatever reason (a failed spawn too). */
  exited: Promise<ChildExit>;
  /** The last 64 KB of what it printed, with `pipeOutput` (empty otherwise). */
  output(): string;
}

export interface ChildExit { code: number | null; signal: string | null }

export interface ChildOptions {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Output goes to this file (appended), so a failed start can be diagnosed. */
  logFile: string;
  /**
   * Output comes through pipes to this process, which keeps its tail (output()) and copies it
   * into the log as far as it can: for a helper whose start is read from what it prints, so that
   * a full disk under the log loses the copy, never the "ready" line or the reason it failed.
   */
  pipeOutput?: boolean;
}

/** Helpers still running, ended with their owner (see endWithOwner). */
const running = new Set<ChildProcess>();
let ownerWatched = false;

/**
 * A helper runs in a process group of its own, so a Ctrl-C in the terminal reaches only its
 * owner: `npm start` stops its helpers itself, in order (API, SMTP and worker first, the store
 * last) and tells that stop from a crash. An owner that exits, or dies of a signal it does not
 * handle (a test run, the CLI), takes its helpers along: signal-exit runs this on both, and
 * leaves a signal alone when the owner handles it.
 */
function endWithOwner(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (ownerWatched) return;
  ownerWatched = true;
  onExit(() => {
    for (const helper of running) helper.kill('SIGTERM');
  });
}

/** Starts a long-running helper process whose output goes to a log file. */
export function startChild(options: ChildOptions): ChildHandle {
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const out = options.pipeOutput ? 'pipe' : fs.openSync(options.logFile, 'a');
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', out, out],
    // Its own process group (see endWithOwner); on Windows `detached` would open a console instead.
    detached: process.platform !== 'win32',
  });
  if (typeof out === 'number') fs.closeSync(out);
  let output = '';
  const take = (text: string) => {
    output = (output + text).slice(-65_536);
    try { fs.appendFileSync(options.logFile, text); } catch { /* the disk is full: the copy is lost, the tail kept */ }
  };
  child.stdout?.setEncoding('utf8').on('data', take);
  child.stderr?.setEncoding('utf8').on('data', take);
  let exited = child.exitCode !== null;
  const exitPromise = new Promise<ChildExit>((resolve) => {
    // With pipes, 'close' comes once their last output is read too (the reason it failed).
    child.once(options.pipeOutput ? 'close' : 'exit', (code: number | null, signal: NodeJS.Signals | null) => { exited = true; resolve({ code, signal }); });
    child.once('error', () => { exited = true; resolve({ code: null, signal: null }); });
  });
  if (child.pid !== undefined) endWithOwner(child);
  return {
    name: options.name,
    process: child,
    async stop(graceMs = 10000) {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => { if (!exited) child.kill('SIGKILL'); }, graceMs);
      await exitPromise;
      clearTimeout(timer);
    },
    exited: exitPromise,
    output: () => output,
  };
}

/** Last lines of a log file, for error messages when a helper process fails to start. */
export function tailOf(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
