// Runs fast-check against a live Herald: every generated request must get a non-5xx JSON
// answer in its interface's shape. Counts answers by status for the report.
import fc from 'fast-check';
import type { FuzzContext } from './arbitraries';
import type { FuzzTarget } from './targets';

export interface CampaignResult {
  target: string;
  runs: number;
  statuses: Record<string, number>;
  /** The first rule broken, with the input that broke it (after shrinking). */
  failure?: string;
  /** The time limit stopped it before its runs were done. */
  cut: boolean;
}

export interface CampaignOptions {
  baseUrl: string;
  known: FuzzContext;
  transactionalKey: string;
  runs: number;
  timeLimitMs: number;
  seed?: number;
}

export async function runCampaign(target: FuzzTarget, options: CampaignOptions): Promise<CampaignResult> {
  const statuses: Record<string, number> = {};
  let runs = 0;
  const property = fc.asyncProperty(target.body(options.known), async (body) => {
    const key = { none: undefined, transactional: options.transactionalKey, api: options.known.apiKey }[target.auth];
    const response = await fetch(`${options.baseUrl}${target.path(options.known.account)}`, {
      method: target.method,
      headers: {
        'content-type': target.contentType,
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body,
    });
    runs += 1;
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    const text = await response.text();
    if (response.status >= 500) throw new Error(`answered ${response.status}: ${text.slice(0, 300)}`);
    if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) throw new Error(`not JSON: ${response.headers.get('content-type')}`);
    const problems = target.checkAnswer(response.status, JSON.parse(text));
    if (problems.length > 0) throw new Error(`answered ${response.status} ${text.slice(0, 300)}: ${problems.join('; ')}`);
  });
  const details = await fc.check(property, {
    numRuns: options.runs,
    seed: options.seed,
    endOnFailure: false,
    interruptAfterTimeLimit: options.timeLimitMs,
    markInterruptAsFailure: false,
  });
  // fast-check counts a time limit reached before any input passed as a failure; with no input
  // that broke a rule, that is a target cut short (a busy machine), not a fault.
  const cutBeforeAnyInput = details.interrupted && details.counterexample === null;
  const failure = details.failed && !cutBeforeAnyInput
    ? `${(details.errorInstance as Error | undefined)?.message ?? 'failed'}\nseed ${details.seed}, input (first 500 chars): ${String(details.counterexample?.[0]).slice(0, 500)}`
    : undefined;
  // A copy: a request cut short by the time limit may still answer, and count, after this returns.
  return { target: target.name, runs, statuses: { ...statuses }, failure, cut: details.interrupted };
}
