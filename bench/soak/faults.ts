// The schedule of faults, drawn from the seed before the run starts: one kill per `--kill-every`
// period at a random moment within it, of one of the processes or all of them at once, and one
// disk-full episode at a random moment in the run's middle third.
import type { ProcessName } from './fleet';

export const KILL_TARGETS = ['store', 'temporal', 'worker', 'api', 'smtp', 'whole'] as const;
export type KillTarget = typeof KILL_TARGETS[number];

export interface PlannedKill { atMs: number; target: KillTarget }
export interface PlannedDiskEpisode { atMs: number; durationMs: number }

export const processesOf = (target: KillTarget): ProcessName[] =>
  (target === 'whole' ? ['store', 'temporal', 'worker', 'api', 'smtp'] : [target]);

export function planFaults(minutes: number, killEveryMinutes: number, random: () => number): { kills: PlannedKill[]; disk: PlannedDiskEpisode } {
  const runMs = minutes * 60_000;
  const periodMs = killEveryMinutes * 60_000;
  const kills: PlannedKill[] = [];
  for (let start = 0; start + periodMs <= runMs + 1; start += periodMs) {
    // Not in a period's first or last tenth, so that kills of neighbouring periods stay apart.
    kills.push({ atMs: Math.round(start + periodMs * (0.1 + 0.8 * random())), target: KILL_TARGETS[Math.floor(random() * KILL_TARGETS.length)] });
  }
  const durationMs = Math.min(60_000, runMs / 6);
  const disk = { atMs: Math.round(runMs / 3 + (runMs / 3 - durationMs) * random()), durationMs };
  return { kills, disk };
}
