// Where a thread's time goes, by stage: V8's sampling profiler on the thread itself (node:inspector),
// each sample given to the stage of the nearest frame on its stack that a rule names (a Node
// internal called by nodemailer is render work, say), garbage collection apart. Run on a pass of
// its own: the profiler slows what it watches by a few percent.
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/** A stage and the frames that make it theirs: a pattern of their script URL or function name. */
export interface StageRule { stage: string; url?: RegExp; name?: RegExp }

interface ProfileNode { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/**
 * Starts sampling this thread; the returned function stops it and gives ms per stage (`gc` and
 * `other` besides the rules'; idle time left out). With HERALD_BENCH_CPU_PROF=<dir> the profile is also written there
 * as `<name>.cpuprofile` (Chrome's DevTools open it).
 */
export async function profileThread(name: string, rules: StageRule[]): Promise<() => Promise<Record<string, number>>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop') as unknown as { profile: Profile };
    session.disconnect();
    const dir = process.env.HERALD_BENCH_CPU_PROF;
    if (dir) fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    return stageTimes(profile, rules);
  };
}

/** The profiler's own work (taking the profile at its end) is left out, as idle time is. */
const LEFT_OUT = new Set(['idle', 'profiler']);

function stageOf(frame: ProfileNode['callFrame'], rules: StageRule[]): string | undefined {
  if (frame.functionName === '(garbage collector)') return 'gc';
  if (frame.functionName === '(idle)') return 'idle';
  if (frame.url.endsWith('/bench/cpu-profile.js')) return 'profiler';
  return rules.find((rule) => (rule.url?.test(frame.url) ?? false) || (rule.name?.test(frame.functionName) ?? false))?.stage;
}

function stageTimes(profile: Profile, rules: StageRule[]): Record<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const stage = new Map<number, string>();
  const assign = (node: ProfileNode, inherited: string) => {
    const own = stageOf(node.callFrame, rules) ?? inherited;
    stage.set(node.id, own);
    for (const child of node.children ?? []) assign(byId.get(child)!, own);
  };
  assign(profile.nodes[0], 'other');
  const ms: Record<string, number> = {};
  profile.samples.forEach((id, i) => {
    const name = stage.get(id) ?? 'other';
    ms[name] = (ms[name] ?? 0) + profile.timeDeltas[i] / 1000;
  });
  return Object.fromEntries(Object.entries(ms).filter(([name]) => !LEFT_OUT.has(name)).map(([name, value]) => [name, Math.round(value)]));
}
