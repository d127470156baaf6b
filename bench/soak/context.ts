// What every load of the soak shares: where Herald answers, the account's credentials, the
// answers' tally, and the record of what Herald accepted and so owes.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../adapters/project-root';
import type { Answers } from './answers';

export interface Accepted {
  to: string;
  subject: string;
  /** The Herald-Batch-Id of an HTTP send, or the batch an SMTP 250 named ("queued as"): its events carry it. */
  batchId?: string;
  /** Sent to an address on the suppression list: Herald owes a `dropped` event, not a message. */
  suppressed: boolean;
  kind: 'http' | 'smtp' | 'big';
}

export interface SoakContext {
  apiUrl: string;
  smtpPort: number;
  account: string;
  apiKey: string;
  transactionalKey: string;
  answers: Answers;
  /** Messages answered 202 or 250 (one per recipient). */
  accepted: Accepted[];
  /** False once the load's time is over: every loop ends its current step and returns. */
  running: () => boolean;
}

export const SOAK_DOMAIN = 'soak.test';
export const FROM = 'shop@sender.test';

/** Runs the `herald` CLI as an operator would, against the soak's Herald (`env`); its stdout. */
export const heraldCli = (env: NodeJS.ProcessEnv, ...args: string[]) => execFileSync(process.execPath, [path.join(projectRoot, 'bin/herald.js'), ...args], { env, encoding: 'utf8' });

export const accountUrl = (ctx: SoakContext, path: string) => `${ctx.apiUrl}/v2/${ctx.account}${path}`;
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** A loop that runs `step` every `everyMs` (from one start to the next) while the load runs, `concurrency` steps at once at most. */
export async function every(ctx: SoakContext, everyMs: number, step: (n: number) => Promise<void>, concurrency = 1): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  for (let n = 0; ctx.running(); n += 1) {
    const started = Date.now();
    const run = step(n).catch(() => undefined).finally(() => inFlight.delete(run));
    inFlight.add(run);
    if (inFlight.size >= concurrency) await Promise.race(inFlight);
    const wait = everyMs - (Date.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await Promise.all(inFlight);
}
