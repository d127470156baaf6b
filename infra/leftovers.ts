import fs from 'node:fs';
import type { StackRecord } from './stack-record';

/** What each embedded service's command line contains: a pid is only ended when it still matches. */
export const CHILD_MARKERS = { store: 'HeraldStore', temporal: 'start-dev', mailSink: 'maildev' } as const;

export type ChildName = keyof typeof CHILD_MARKERS;

/**
 * Ends embedded services that a crashed `npm start` (killed before it could stop them) left
 * running for this data folder: they would hold the store's file lock and the ports.
 * Linux only (it checks /proc/<pid>/cmdline, so a reused pid is never hit); elsewhere a no-op.
 */
export async function stopLeftovers(previous: StackRecord | undefined): Promise<string[]> {
  const stopped: string[] = [];
  for (const [name, pid] of Object.entries(previous?.children ?? {})) {
    const marker = CHILD_MARKERS[name as ChildName];
    if (!marker || !pid || !commandLineOf(pid)?.includes(marker)) continue;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 20000;
    while (commandLineOf(pid) !== undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (commandLineOf(pid) !== undefined) process.kill(pid, 'SIGKILL');
    stopped.push(`${name} (pid ${pid})`);
  }
  return stopped;
}

function commandLineOf(pid: number): string | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    // A zombie (exited, not yet reaped) has an empty command line: treat it as gone.
    return text ? text.replace(/\0/g, ' ') : undefined;
  } catch {
    return undefined;
  }
}
