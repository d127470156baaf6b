// CPU time of processes and threads, read from /proc (Linux): what each part of a scenario spends
// on the machine's cores, the store's and Temporal's processes included, so a figure per request
// says where the work goes. Clock ticks (10 ms) summed over seconds of load are precise enough.
import fs from 'node:fs';

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** utime + stime of a /proc stat line, in ms (the fields after the command name, which may hold spaces). */
function cpuOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function read(path: string): string | undefined {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process or thread ended
  }
}

/** CPU ms of a whole process so far (its ended threads included); 0 when it is gone. */
export function processCpuMs(pid: number): number {
  const stat = read(`/proc/${pid}/stat`);
  return stat ? cpuOfStat(stat) : 0;
}

/** CPU ms of the calling thread so far (a worker thread reports its own). */
export function threadCpuMs(): number {
  return cpuOfStat(fs.readFileSync('/proc/thread-self/stat', 'utf8'));
}

/** The calling thread's id, as /proc/<pid>/task/ names it. */
export function threadId(): number {
  return Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
}

/** CPU ms of each thread of a process so far, by thread id, with its name (Java and Go name theirs; Node's are "node"). */
export function threadsCpuMs(pid: number): Map<number, { name: string; ms: number }> {
  const threads = new Map<number, { name: string; ms: number }>();
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    const stat = read(`/proc/${pid}/task/${tid}/stat`);
    const name = read(`/proc/${pid}/task/${tid}/comm`)?.trim();
    if (stat && name) threads.set(Number(tid), { name, ms: cpuOfStat(stat) });
  }
  return threads;
}

/** The JVM's compiler threads ("C1 CompilerThre", "C2 CompilerThre"): its JIT, apart from the work. */
export function jvmJitMs(pid: number): number {
  let ms = 0;
  for (const { name, ms: used } of threadsCpuMs(pid).values()) if (/Compiler/.test(name)) ms += used;
  return ms;
}

/** A meter of named CPU readings: `start()` takes the readings, `perItem(n)` gives each one's growth since, per item. */
export class CpuMeter {
  private base = new Map<string, number>();

  constructor(private readonly readings: Record<string, () => number>) {}

  start(): void {
    this.base = new Map(Object.entries(this.readings).map(([name, reading]) => [name, reading()]));
  }

  /** ms of CPU per item of each reading since start(), rounded to µs. */
  perItem(items: number): Record<string, number> {
    return Object.fromEntries(Object.entries(this.readings).map(([name, reading]) => (
      [name, Math.round(((reading() - (this.base.get(name) ?? 0)) / items) * 1000) / 1000]
    )));
  }
}
