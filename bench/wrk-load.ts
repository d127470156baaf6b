// HTTP load from wrk (Debian's `wrk` package), a C load generator, when it is installed: Node's
// own client costs about as much CPU per request as the server it loads, so on a 2-core machine
// a JavaScript load generator takes half the machine from what it measures. wrk needs about a
// tenth of that. Requests cycle through the given paths, User-Agents and X-Forwarded-For addresses.
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface WrkLoad { base: string; paths: string[]; userAgents: string[]; ips: string[]; connections: number; durationMs: number; dir: string }

export interface WrkResult { requests: number; durationMs: number; p50Ms: number; p99Ms: number; errors: number; firstError?: string }

/** True when `wrk` can be run here. */
export function haveWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

const SCRIPT = `
local function lines(f) local t = {} for l in io.lines(f) do t[#t + 1] = l end return t end
local dir = os.getenv("HERALD_WRK_DIR")
local paths, uas, ips = lines(dir .. "/paths"), lines(dir .. "/uas"), lines(dir .. "/ips")
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1], { ["User-Agent"] = uas[(i % #uas) + 1], ["X-Forwarded-For"] = ips[(i % #ips) + 1] })
end
`;

/** Runs wrk (one thread) for the load's duration and reads its summary. */
export async function runWrk(load: WrkLoad): Promise<WrkResult> {
  const dir = fs.mkdtempSync(path.join(load.dir, 'wrk-'));
  fs.writeFileSync(path.join(dir, 'paths'), load.paths.join('\n'));
  fs.writeFileSync(path.join(dir, 'uas'), load.userAgents.join('\n'));
  fs.writeFileSync(path.join(dir, 'ips'), load.ips.join('\n'));
  fs.writeFileSync(path.join(dir, 'load.lua'), SCRIPT);
  const seconds = Math.max(1, Math.round(load.durationMs / 1000));
  const output = await new Promise<string>((resolve, reject) => {
    execFile('wrk', ['-t1', `-c${load.connections}`, `-d${seconds}s`, '--latency', '-s', path.join(dir, 'load.lua'), load.base],
      { env: { ...process.env, HERALD_WRK_DIR: dir } }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
  const requests = /(\d+) requests in ([\d.]+)(m?s)/.exec(output);
  if (!requests) throw new Error(`unreadable wrk output: ${output}`);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requests: Number(requests[1]),
    durationMs: Number(requests[2]) * (requests[3] === 's' ? 1000 : 1),
    p50Ms: latencyMs(output, '50%'),
    p99Ms: latencyMs(output, '99%'),
    errors: non2xx + socketErrors,
    ...(non2xx + socketErrors > 0 ? { firstError: `${non2xx} answers not 2xx/3xx, ${socketErrors} socket errors` } : {}),
  };
}

function latencyMs(output: string, percentile: string): number {
  const match = new RegExp(`${percentile}\\s+([\\d.]+)(us|ms|s)`).exec(output);
  if (!match) return NaN;
  return Number(match[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[match[2]];
}
