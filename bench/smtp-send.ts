// (e) SMTP submissions through Herald: 20 clients, each a connection of its own (AUTH once),
// submitting single-recipient ~15 KB HTML messages (nodemailer composes them) to the SMTP listener
// on a thread of its own; accepted submissions/s (each a 250) beside the bare signalWithStart rate
// of the same Temporal server, p50/p99 of a submission, and delivered/s: every message must reach
// the relay, through the same gathering path as HTTP sends.
import { startSmtpThread } from './api-thread';
import { measureTemporalReference, startBenchHerald, startBenchStack } from './herald-stack';
import { runSmtpLoad } from './load-thread';
import { percentile, perSecond, round } from './stats';
import { log, Teardown } from './support';

const MESSAGES = 1000;
const CLIENTS = 20;
/** The goal: accepted submissions/s at least this share of the bare signalWithStart rate. */
const GOAL_RATIO = 0.4;

export async function runSmtpSend(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const stack = await startBenchStack('smtp-send', teardown);
    log(`smtp-send: bare Temporal reference on this server (signalWithStart, ${CLIENTS} in flight)`);
    const { signalWithStartPerS } = await measureTemporalReference(stack, CLIENTS, false);
    log('smtp-send: starting Herald (worker in-process, SMTP listener on its own thread)');
    const herald = await startBenchHerald(stack, teardown);
    const smtpPort = await startSmtpThread(stack.store.uri, herald.config.mongodbDatabase, teardown, herald.listenerTemporal);
    const load = { smtpPort, transactionalKey: herald.transactionalKey, timeoutMs: 120_000 };
    // Warm-up: one message end to end, so the first-time costs stay out of the figures.
    await runSmtpLoad({ ...load, first: -1, count: 1, concurrency: 1 }, () => undefined);
    await stack.sink.waitFor(1, 60_000);

    log(`smtp-send: ${MESSAGES} messages from ${CLIENTS} clients`);
    let started = 0;
    const pool = await runSmtpLoad({ ...load, first: 0, count: MESSAGES, concurrency: CLIENTS }, () => { started = performance.now(); });
    const accepted = pool.results.length;
    const acceptedPerS = perSecond(accepted, pool.durationMs);
    let reachedAt: number | undefined;
    try {
      reachedAt = await stack.sink.waitFor(1 + accepted, 180_000);
    } catch (error) {
      log(`smtp-send: ${(error as Error).message}`);
    }
    const deliveredPerS = reachedAt === undefined ? NaN : perSecond(accepted, reachedAt - started);
    return {
      scenario: 'smtp-send',
      accepted_per_s: acceptedPerS,
      signal_with_start_per_s: signalWithStartPerS,
      ratio_accepted_to_signal_with_start: round(acceptedPerS / signalWithStartPerS, 2),
      goal_ratio: GOAL_RATIO,
      p50_submission_ms: round(percentile(pool.results, 50)),
      p99_submission_ms: round(percentile(pool.results, 99)),
      accepted,
      submission_errors: MESSAGES - accepted,
      ...(pool.firstError ? { first_error: pool.firstError } : {}),
      delivered: (await stack.sink.count()) - 1,
      delivered_per_s: deliveredPerS,
      notes: `${CLIENTS} clients (nodemailer, a pooled connection each, AUTH once, on a thread of their own) submitting ${MESSAGES} ` +
        'single-recipient ~15 KB HTML messages, each tracked, to the SMTP listener on its own thread; accepted_per_s = 250 replies per second; ' +
        `delivered_per_s = first submission to the relay's ${MESSAGES}th message; signal_with_start_per_s = bare signalWithStart into one ` +
        `workflow on the same server, ${CLIENTS} in flight`,
    };
  } finally {
    await teardown.run();
  }
}
