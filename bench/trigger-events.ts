// Custom triggers end to end: events posted to the account's trigger address by 50 concurrent
// clients (on a thread of their own) through the API (its own thread) with the hourly limit
// raised for the run; each event matches one active automation with one email step, so each
// becomes a TriggerAutomation workflow, a contact created, an AutomationRun and one message to a
// counting relay. Reported: accepted events/s beside bare signalWithStart calls/s on the same
// Temporal server (the goal: at least 60%), and automation email runs completed/s beside
// bare no-op workflows/s there (each event is two workflows and four activities).
import { Pool } from 'undici';
import { updateAccountSettings } from '../core/account-settings';
import { startApiThread } from './api-thread';
import { measureTemporalReference, startBenchHerald, startBenchStack } from './herald-stack';
import { runTriggerLoad } from './load-thread';
import { BENCH_TRIGGER_KEY, sampleHtml } from './mail';
import { percentile, perSecond, round } from './stats';
import { log, Teardown } from './support';

const EVENTS = 1500;
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

    log('trigger-events: starting Herald (worker in-process, API on its own thread)');
    const herald = await startBenchHerald(stack, teardown);
    const { account, apiKey, services } = herald;
    const apiBase = await startApiThread(stack.store.uri, herald.config.mongodbDatabase, teardown, herald.listenerTemporal);
    await updateAccountSettings(services.store, account, { triggerHourlyLimit: 1_000_000_000 });
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

    // Warm-up: one event end to end, so first-time costs (workflow cache, relay connection) stay out.
    await runTriggerLoad({ apiBase, path, first: -1, count: 1, concurrency: 1, timeoutMs: 60_000 }, () => undefined);
    await stack.sink.waitFor(1, 120_000);

    log(`trigger-events: ${EVENTS} events, ${CONCURRENCY} at a time (clients on a thread of their own)`);
    let started = 0;
    const pool = await runTriggerLoad({ apiBase, path, first: 0, count: EVENTS, concurrency: CONCURRENCY, timeoutMs: 120_000 }, () => {
      started = performance.now();
    });
    const accepted = pool.results.length;
    const acceptedPerS = perSecond(accepted, pool.durationMs);
    let reachedAt: number | undefined;
    try {
      reachedAt = await stack.sink.waitFor(1 + accepted, 600_000);
    } catch (error) {
      log(`trigger-events: ${(error as Error).message}`);
    }
    const runsPerS = reachedAt === undefined ? NaN : perSecond(accepted, reachedAt - started);
    return {
      scenario: 'trigger-events',
      accepted_per_s: acceptedPerS,
      signal_with_start_per_s: reference.signalWithStartPerS,
      ratio_accepted_to_signal_with_start: round(acceptedPerS / reference.signalWithStartPerS, 2),
      p50_accept_ms: round(percentile(pool.results, 50)),
      p99_accept_ms: round(percentile(pool.results, 99)),
      accepted,
      request_errors: EVENTS - accepted,
      ...(pool.firstError ? { first_error: pool.firstError } : {}),
      email_runs_per_s: runsPerS,
      bare_workflows_per_s: reference.workflowsPerS,
      ratio_runs_to_bare_workflows: round(runsPerS / (reference.workflowsPerS ?? NaN), 2),
      delivered: (await stack.sink.count()) - 1,
      events: EVENTS,
      concurrency: CONCURRENCY,
    };
  } finally {
    await teardown.run();
  }
}
