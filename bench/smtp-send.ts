// (e) SMTP submissions through Herald: 20 clients, each a connection of its own (AUTH once),
// submitting single-recipient ~15 KB HTML messages (composed by nodemailer beforehand) to the
// SMTP listener on a thread of its own: accepted submissions/s (each a 250), p50/p99 of a
// submission, and delivered/s; every message must reach the relay, through the same send queue
// as HTTP sends. Beside it, in the same run: the same number of the same messages posted over HTTP
// by as many clients (delivered/s: the goal is SMTP at 0.8 of it at least), and where a
// submission's cost goes (CPU per process and thread, the listener's and the worker's stages).
import { startListener } from './api-thread';
import { profileThread } from './cpu-profile';
import { startBenchHerald, startBenchStack } from './herald-stack';
import { runSendLoad, runSmtpLoad } from './load-thread';
import { singleSendMeter, SMTP_STAGES, stagesPerRequest, WORKER_STAGES } from './single-send-cost';
import { percentile, perSecond, round } from './stats';
import { log, Teardown } from './support';

const MESSAGES = 1000;
const CLIENTS = 20;
const WARM_UP = 300;
const PROFILED = 300;
/** The goal: delivered/s over SMTP at least this share of HTTP's in the same run. */
const GOAL_RATIO = 0.8;

export async function runSmtpSend(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const stack = await startBenchStack('smtp-send', teardown);
    log('smtp-send: starting Herald (worker in-process, SMTP listener and API on threads of their own)');
    const herald = await startBenchHerald(stack, teardown);
    const smtp = await startListener('smtp', stack.store.uri, herald.config.mongodbDatabase, teardown, herald.listenerTemporal);
    const api = await startListener('api', stack.store.uri, herald.config.mongodbDatabase, teardown, herald.listenerTemporal);
    const smtpLoad = { smtpPort: smtp.port, transactionalKey: herald.transactionalKey, timeoutMs: 120_000, concurrency: CLIENTS };
    let delivered = 0;
    const delivery = (count: number) => stack.sink.waitFor((delivered += count), 180_000);

    log(`smtp-send: ${WARM_UP} messages to warm up`);
    await runSmtpLoad({ ...smtpLoad, first: -WARM_UP, count: WARM_UP }, () => undefined);
    await delivery(WARM_UP);

    log(`smtp-send: ${MESSAGES} messages from ${CLIENTS} clients`);
    const cpu = singleSendMeter(stack, smtp.tid);
    let started = 0;
    const pool = await runSmtpLoad({ ...smtpLoad, first: 0, count: MESSAGES }, () => { started = performance.now(); cpu.start(); });
    const accepted = pool.results.length;
    const acceptedPerS = perSecond(accepted, pool.durationMs);
    let reachedAt: number | undefined;
    try {
      reachedAt = await delivery(accepted);
    } catch (error) {
      log(`smtp-send: ${(error as Error).message}`);
    }
    const cpuPerSubmission = cpu.perRequest(accepted, pool.cpuMs, 'smtp');
    const deliveredPerS = reachedAt === undefined ? NaN : perSecond(accepted, reachedAt - started);

    log(`smtp-send: ${PROFILED} messages with the listener's and the worker's threads profiled`);
    const stopSmtp = await smtp.profile('smtp-send-listener', SMTP_STAGES);
    const stopWorker = await profileThread('smtp-send-worker', WORKER_STAGES);
    await runSmtpLoad({ ...smtpLoad, first: MESSAGES, count: PROFILED }, () => undefined);
    await delivery(PROFILED);
    const [smtpStages, workerStages] = await Promise.all([stopSmtp(), stopWorker()]);

    log(`smtp-send: the same ${MESSAGES} messages over HTTP from ${CLIENTS} clients (the reference)`);
    let httpStarted = 0;
    const http = await runSendLoad(
      { apiBase: `http://127.0.0.1:${api.port}`, transactionalKey: herald.transactionalKey, first: 10_000, count: MESSAGES, concurrency: CLIENTS, timeoutMs: 120_000 },
      () => { httpStarted = performance.now(); },
    );
    const httpReachedAt = await delivery(http.results.length).catch(() => undefined);
    const httpPerS = httpReachedAt === undefined ? NaN : perSecond(http.results.length, httpReachedAt - httpStarted);
    return {
      scenario: 'smtp-send',
      accepted_per_s: acceptedPerS,
      p50_submission_ms: round(percentile(pool.results, 50)),
      p99_submission_ms: round(percentile(pool.results, 99)),
      accepted,
      submission_errors: MESSAGES - accepted,
      ...(pool.firstError ? { first_error: pool.firstError } : {}),
      delivered_per_s: deliveredPerS,
      http_delivered_per_s: httpPerS,
      ratio_delivered_to_http: round(deliveredPerS / httpPerS, 2),
      goal_ratio: GOAL_RATIO,
      cpu_ms_per_submission: cpuPerSubmission,
      stages_ms_per_submission: { smtp_thread: stagesPerRequest(smtpStages, PROFILED), worker_thread: stagesPerRequest(workerStages, PROFILED) },
      notes: `${CLIENTS} clients (nodemailer, a pooled connection each, AUTH once, on a thread of their own) submitting ${MESSAGES} ` +
        `single-recipient ~15 KB HTML messages composed beforehand, each tracked, to the SMTP listener on its own thread, after ${WARM_UP} to warm up; ` +
        `accepted_per_s = 250 replies per second; delivered_per_s = first submission to the relay's ${MESSAGES}th message; ` +
        `http_delivered_per_s = the same messages' HTML posted to /v1/mail/send by ${CLIENTS} clients on the same stack, first request to the last message; ` +
        `cpu_ms_per_submission and stages_ms_per_submission as herald-send's (the stages over ${PROFILED} more submissions)`,
    };
  } finally {
    await teardown.run();
  }
}
