// Custom triggers end to end: events posted to the account's trigger address by 50 concurrent
// clients (on a thread of their own) through the API (its own thread) with the hourly limit
// raised for the run; each event matches one active automation with one email step, so each
// becomes a TriggerAutomation workflow, a contact created, an AutomationRun and one message to a
// counting relay. Three phases: (1) the intake alone, worker held back, as the reference was
// measured: accepted events/s beside bare signalWithStart calls/s on the same Temporal server
// (the issue's goal: at least 60%); (2) the worker drains those events' runs: automation email
// runs completed/s beside bare no-op workflows/s there (each event is two workflows and four
// activities); (3) both at once, as a deployment meets them.
import { Pool } from 'undici';
import { updateAccountSettings } from '../core/accounts/settings';
import { startApiThread } from './api-thread';
import { measureTemporalReference, startBenchHerald, startBenchStack } from './herald-stack';
import { runTriggerLoad } from './load-thread';
import { BENCH_TRIGGER_KEY, sampleHtml } from './mail';
import { percentile, perSecond, round } from './stats';
import { log, Teardown } from './support';

const EVENTS = 1000;
const WARM_UP = 50;
const CONCURRENCY = 50;

/** One account API call with the owner's key; the answer's `data`. */
async function callApi(client: Pool, apiKey: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await client.request({
    method: 'POST', path, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  });
  const answer = await res.body.json() as { data?: Record<string, unknown> };
  if (res.statusCode >= 300) throw new Error(`${path}: HTTP ${res.statusCode} ${JSON.stringify(answer).slice(0, 300)}`);
  return answer.data ?? {};
}

export async function runTriggerEvents(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const stack = await startBenchStack('trigger-events', teardown);
    log(`trigger-events: bare Temporal reference on this server (signalWithStart, ${CONCURRENCY} in flight; no-op workflows)`);
    const reference = await measureTemporalReference(stack, CONCURRENCY, true);

    log('trigger-events: starting Herald (worker held back, API on its own thread)');
    const herald = await startBenchHerald(stack, teardown, { deferWorker: true });
    const { account, apiKey, store } = herald;
    const apiBase = await startApiThread(stack.store.uri, herald.config.mongodbDatabase, teardown, herald.listenerTemporal);
    await updateAccountSettings(store, account, { triggerHourlyLimit: 1_000_000_000 });
    const client = new Pool(apiBase, { connections: 1 });
    teardown.defer('http client', () => client.close());
    const { trigger_url: triggerUrl } = await callApi(client, apiKey, `/v2/${account}/integrations/customtriggers/activate`);
    const automation = await callApi(client, apiKey, `/v2/${account}/automations`, {
      name: 'Order paid',
      trigger: { type: 'custom', key: BENCH_TRIGGER_KEY },
      steps: [{
        type: 'email', from: 'shop@herald.test', fromName: 'Shop', subject: 'Order ${order.id} paid: ${order.total}',
        html: sampleHtml(0).replace('<body>', '<body><p>Thanks ${contact.email}, order ${order.id} (${order.total}) is paid.</p>'),
      }],
    });
    await callApi(client, apiKey, `/v2/${account}/automations/${String(automation.id)}/activate`);
    const path = new URL(String(triggerUrl)).pathname;
    const load = (first: number, count: number, onGo: () => void = () => undefined) => (
      runTriggerLoad({ apiBase, path, first, count, concurrency: CONCURRENCY, timeoutMs: 120_000 }, onGo)
    );

    // (1) The intake on its own, as the reference was measured: nothing else runs on the server.
    await load(-WARM_UP, WARM_UP); // warm-up: JITs, connections, the hour's usage document
    log(`trigger-events: ${EVENTS} events, ${CONCURRENCY} at a time, worker held back (clients on a thread of their own)`);
    const alone = await load(0, EVENTS);
    // (2) The runs of everything accepted so far, drained by the worker with no intake competing.
    const backlog = WARM_UP + alone.results.length;
    log(`trigger-events: the worker runs the ${backlog} events' automations`);
    const drainStarted = performance.now();
    herald.startWorker();
    const drainedAt = await stack.sink.waitFor(backlog, 900_000).catch((error: Error) => { log(`trigger-events: ${error.message}`); return undefined; });
    const runsPerS = drainedAt === undefined ? NaN : perSecond(backlog, drainedAt - drainStarted);
    // (3) Both at once, as a deployment meets them: events posted while their runs execute.
    log(`trigger-events: ${EVENTS} more events while the worker runs them`);
    let mixedStarted = 0;
    const mixed = await load(EVENTS, EVENTS, () => { mixedStarted = performance.now(); });
    const mixedDoneAt = await stack.sink.waitFor(backlog + mixed.results.length, 900_000).catch(() => undefined);

    const acceptedPerS = perSecond(alone.results.length, alone.durationMs);
    return {
      scenario: 'trigger-events',
      accepted_per_s: acceptedPerS,
      signal_with_start_per_s: reference.signalWithStartPerS,
      ratio_accepted_to_signal_with_start: round(acceptedPerS / reference.signalWithStartPerS, 2),
      p50_accept_ms: round(percentile(alone.results, 50)),
      p99_accept_ms: round(percentile(alone.results, 99)),
      email_runs_per_s: runsPerS,
      bare_workflows_per_s: reference.workflowsPerS,
      ratio_runs_to_bare_workflows: round(runsPerS / (reference.workflowsPerS ?? NaN), 2),
      mixed_accepted_per_s: perSecond(mixed.results.length, mixed.durationMs),
      mixed_p99_accept_ms: round(percentile(mixed.results, 99)),
      mixed_email_runs_per_s: mixedDoneAt === undefined ? NaN : perSecond(mixed.results.length, mixedDoneAt - mixedStarted),
      request_errors: alone.errors + mixed.errors,
      ...(alone.firstError ?? mixed.firstError ? { first_error: alone.firstError ?? mixed.firstError } : {}),
      delivered: await stack.sink.count(),
      events: 2 * EVENTS + WARM_UP,
      concurrency: CONCURRENCY,
    };
  } finally {
    await teardown.run();
  }
}
