import { spawn, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface ChildHandle {
  name: string;
  process: ChildProcess;
  /** SIGTERM, then SIGKILL if it has not exited after graceMs. */
  stop(graceMs?: number): Promise<void>;
  /** Settles when the process ends, for whatever reason (a failed spawn too). */
  exited: Promise<ChildExit>;
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
}

/** Starts a long-running helper process whose output goes to a log file. */
export function startChild(options: ChildOptions): ChildHandle {
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const out = fs.openSync(options.logFile, 'a');
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  let exited = child.exitCode !== null;
  const exitPromise = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => { exited = true; resolve({ code, signal }); });
    child.once('error', () => { exited = true; resolve({ code: null, signal: null }); });
  });
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
