// Every answer the soak's clients got, by kind of call: the statuses, the calls that got none (a
// process down: connection refused or cut), and the answers that were not a clear refusal — a
// 5xx other than 503, or a 4xx the call did not expect — with a few samples to read.

export interface Sample { kind: string; status: number | string; body: string; at: string }

export class Answers {
  readonly byKind = new Map<string, Map<string, number>>();
  serverErrors = 0;
  unclearRefusals = 0;
  readonly samples: Sample[] = [];

  /** `expected`: the 4xx this call may answer for a reason of its own (a campaign already sent, …). */
  record(kind: string, status: number | 'none', body = '', expected: readonly number[] = []): void {
    const counts = this.byKind.get(kind) ?? new Map<string, number>();
    this.byKind.set(kind, counts);
    const key = String(status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (status === 'none') return;
    const serverError = status >= 500 && status !== 503;
    const unclear = status >= 400 && status < 500 && !expected.includes(status) && status !== 429;
    if (serverError) this.serverErrors += 1;
    if (unclear) this.unclearRefusals += 1;
    if ((serverError || unclear) && this.samples.length < 20) this.samples.push({ kind, status, body: body.slice(0, 300), at: new Date().toISOString() });
  }

  count(kind: string, status: number | 'none'): number {
    return this.byKind.get(kind)?.get(String(status)) ?? 0;
  }

  total(status: number | 'none'): number {
    return [...this.byKind.values()].reduce((sum, counts) => sum + (counts.get(String(status)) ?? 0), 0);
  }

  table(): Record<string, Record<string, number>> {
    return Object.fromEntries([...this.byKind].map(([kind, counts]) => [kind, Object.fromEntries([...counts].sort())]));
  }
}

export interface HttpAnswer { status: number; headers: Headers; text: string }

/**
 * One HTTP call, its answer recorded under `kind`; undefined when none came (refused, cut, or
 * nothing within 30 s). Bodies are JSON unless `raw` says otherwise.
 */
export async function callRecorded(answers: Answers, kind: string, url: string, init: {
  method?: string; headers?: Record<string, string>; json?: unknown; raw?: { type: string; body: string }; expected?: readonly number[]; redirect?: 'follow' | 'manual';
} = {}): Promise<HttpAnswer | undefined> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.json !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(init.json); }
  if (init.raw) { headers['content-type'] = init.raw.type; body = init.raw.body; }
  try {
    const response = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, redirect: init.redirect, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    answers.record(kind, response.status, text, init.expected);
    return { status: response.status, headers: response.headers, text };
  } catch {
    answers.record(kind, 'none');
    return undefined;
  }
}
