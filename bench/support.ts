// Plumbing shared by the scenarios: stderr logging, a bounded worker pool, ordered teardown.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Progress goes to stderr: stdout carries only the JSON result lines. */
export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export interface PoolResult<T> {
  results: T[];
  errors: number;
  firstError?: string;
  /** The deadline passed before every task finished (tasks still running are abandoned). */
  timedOut: boolean;
}

/**
 * Runs task(0..count-1) with at most `concurrency` in flight, bounded in count and in time:
 * no new task starts after the deadline, and the pool returns at the deadline even if a task hangs.
 */
export async function runPool<T>(count: number, concurrency: number, timeoutMs: number, task: (i: number) => Promise<T>): Promise<PoolResult<T>> {
  const deadline = Date.now() + timeoutMs;
  const out: PoolResult<T> = { results: [], errors: 0, timedOut: false };
  let next = 0;
  const slot = async () => {
    while (next < count && Date.now() < deadline) {
      const i = next++;
      try {
        out.results.push(await task(i));
      } catch (error) {
        out.errors += 1;
        out.firstError ??= (error as Error).message ?? String(error);
      }
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => { timer = setTimeout(() => { out.timedOut = true; resolve(); }, timeoutMs); });
  await Promise.race([Promise.all(Array.from({ length: Math.min(concurrency, count) }, slot)), expired]);
  clearTimeout(timer);
  if (next < count) out.timedOut = true;
  return out;
}

/** Resolves with the promise's value, or rejects after ms (the promise itself keeps running). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms); });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

const active = new Set<Teardown>();

/** Stops what a scenario started, last started first; also run on SIGINT/SIGTERM by run.ts. */
export class Teardown {
  private steps: Array<{ what: string; fn: () => Promise<unknown> | unknown }> = [];
  constructor() { active.add(this); }

  defer(what: string, fn: () => Promise<unknown> | unknown): void {
    this.steps.push({ what, fn });
  }

  /** A temp dir removed at teardown. */
  tempDir(prefix: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    this.defer(`remove ${dir}`, () => fs.rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  async run(): Promise<void> {
    active.delete(this);
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await within(Promise.resolve(step.fn()), 30_000, step.what);
      } catch (error) {
        log(`teardown: ${step.what} failed: ${(error as Error).message}`);
      }
    }
  }
}

/** Every teardown not yet run (for the signal handler). */
export async function runAllTeardowns(): Promise<void> {
  for (const t of [...active]) await t.run();
}
