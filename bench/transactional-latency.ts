// How long a single send takes from its 202 to the relay, with nothing else running and while
// a 100,000-contact campaign sends through the same worker and relay (issue 35). One worker
// process (`node dist/worker.js`, as campaign-send runs it) on one task queue sends both, as a
// deployment's does; the API runs on a thread of its own and the single sends come from another,
// open loop, at half the rate the same stack sustains (measured first in the same run). The
// counting sink times each single send's arrival by its address on the clock the load thread
// times the 202 with. Phases: (1) a burst of single sends from 50 clients: sustained sends/s;
// (2) the campaign alone: its rate; (3) single sends alone for 20 s: latency idle; (4) single
// sends from the second campaign's first message to its last: latency during, and its rate.
import type { CampaignDoc, Store } from '../adapters/store/store';
import { createAccount } from '../core/accounts/accounts';
import { launchCampaign } from '../core/campaigns/lifecycle';
import { createList } from '../core/contacts/lists';
import { startApiThread } from './api-thread';
import {
  CONTACTS, cpuSecondsOf, DATABASE, insertContacts, newCampaign, prebuiltBundle, sentCampaign, startWorkerProcess, TASK_QUEUE, WARM_UP_CONTACTS,
} from './campaign-send';
import type { CountingSink } from './counting-sink';
import { composeBenchHerald, startBenchStack } from './herald-stack';
import { runSendLoad } from './load-thread';
import { recipientOf } from './mail';
import { percentile, perSecond, round } from './stats';
import { prepareSteadyLoad, type SteadyLoad, type SteadyResult } from './steady-load-thread';
import { log, Teardown } from './support';

/** The sink's prefixes: single sends (bench/mail.ts recipientOf), the campaign's and the warm-up campaign's contacts. */
const SINGLE = 'rcpt';
const CAMPAIGN = 'person';
const WARM_CAMPAIGN = 'warm';
const WARM_UP_SENDS = 50;
/** The burst that measures what the stack sustains: herald-send's load. */
const BURST_SENDS = 1500;
const BURST_CLIENTS = 50;
const IDLE_SECONDS = 20;
/** Waits give up only after this long without a single arrival: safety nets, not clocks. */
const STALL_MS = 60_000;
const GOALS = { p99IdleMs: 500, p99DuringMs: 1000, ratioP99: 1.5, campaignKept: 0.8 };

/**
 * The moment (performance.now()) the sink had `n` recipients under `prefix`, or undefined if
 * arrivals stopped for STALL_MS before (what is missing is then counted as lost).
 */
async function arrivalOf(sink: CountingSink, n: number, prefix: string): Promise<number | undefined> {
  let seen = await sink.count(prefix);
  for (;;) {
    try {
      return await sink.waitFor(n, STALL_MS, prefix);
    } catch {
      const now = await sink.count(prefix);
      if (now === seen) { log(`transactional-latency: stalled at ${now} of ${n} ${prefix}… recipients`); return undefined; }
      seen = now;
    }
  }
}

/**
 * Each process's CPU (every thread) since the meter started: `cores` used on average (CPU time
 * over wall time), and `perEvent(n)` its CPU milliseconds per event.
 */
function cpuMeter(processes: Record<string, number>) {
  const cpuNow = () => Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSecondsOf(pid)]));
  const before = cpuNow();
  const started = performance.now();
  return (until = performance.now()) => {
    const after = cpuNow();
    const each = (f: (ms: number) => number) => Object.fromEntries(Object.keys(processes).map((name) => [name, f((after[name] - before[name]) * 1000)]));
    return { cores: each((ms) => round(ms / (until - started), 2)), perEvent: (n: number) => each((ms) => round(ms / n, 2)) };
  };
}

/** A steady phase's figures: each accepted send's time from its 202 to its arrival at the sink. */
async function toRelay(sink: CountingSink, result: SteadyResult, before: number) {
  await arrivalOf(sink, before + result.sends.length, SINGLE);
  const arrivals = await sink.arrivals(SINGLE);
  const latencies: number[] = [];
  for (const send of result.sends) {
    const at = arrivals.get(recipientOf(send.index));
    if (at !== undefined) latencies.push(at - send.acceptedAt);
  }
  const accepts = result.sends.map((s) => s.acceptMs);
  return {
    sends: result.sends.length,
    lost: result.sends.length - latencies.length,
    errors: result.started - result.sends.length, // refused, failed, or unanswered after the stream's drain
    firstError: result.firstError,
    offeredPerS: perSecond(result.started, result.durationMs),
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    max: round(Math.max(...latencies)),
    p50Accept: round(percentile(accepts, 50)),
    p99Accept: round(percentile(accepts, 99)),
    p99StartLag: round(result.p99StartLagMs),
  };
}

/** A campaign from its launch to its last message at the sink, its recipients counted there. */
async function sendCampaign(deps: { store: Store; sink: CountingSink; launch: (c: CampaignDoc, request: string) => Promise<unknown> }, campaign: CampaignDoc,
  onFirst: () => void = () => undefined) {
  const before = await deps.sink.count(CAMPAIGN);
  const launchedAt = performance.now();
  await deps.launch(campaign, `/bench/${campaign.name}`);
  const firstAt = await arrivalOf(deps.sink, before + 1, CAMPAIGN);
  onFirst();
  const lastAt = await arrivalOf(deps.sink, before + CONTACTS, CAMPAIGN);
  const received = (await deps.sink.count(CAMPAIGN)) - before;
  return {
    perS: lastAt === undefined ? NaN : perSecond(CONTACTS, lastAt - launchedAt),
    firstAfterS: firstAt === undefined ? NaN : round((firstAt - launchedAt) / 1000, 2),
    received,
    lost: Math.max(0, CONTACTS - received),
    launchedAt,
    lastAt,
  };
}

export async function runTransactionalLatency(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    // The campaign's 100k contacts, snapshot, ledger rows and events need the H2 file, as in campaign-send.
    const stack = await startBenchStack('transactional-latency', teardown, { storeFile: true });
    const { sink } = stack;
    const herald = composeBenchHerald(stack, teardown, { HERALD_MONGODB_DATABASE: DATABASE, HERALD_TASK_QUEUE: TASK_QUEUE });
    const [store, temporal] = await Promise.all([herald.store(), herald.temporal()]);
    // One account sends both, as a shop sends its receipts and its newsletter.
    const { account, transactionalKey } = await createAccount(store, 'benchlatency');
    const owner = { id: 1, username: 'bench' };
    const launch = (campaign: CampaignDoc, request: string) => launchCampaign({ store, temporal, taskQueue: TASK_QUEUE }, campaign, { owner, request, launchDate: null });

    log(`transactional-latency: inserting ${CONTACTS} + ${WARM_UP_CONTACTS} contacts`);
    const warmList = await createList(store, account, { name: 'Warm-up' });
    const list = await createList(store, account, { name: 'Everyone' });
    await insertContacts(store, account, warmList.id, 1, WARM_UP_CONTACTS, WARM_CAMPAIGN);
    await insertContacts(store, account, list.id, WARM_UP_CONTACTS + 1, CONTACTS, CAMPAIGN);
    const warmCampaign = await newCampaign(store, account, warmList.id, 'warm-up');
    // A campaign is launched once: one for each run on the same list.
    const aloneCampaign = await newCampaign(store, account, list.id, 'alone');
    const duringCampaign = await newCampaign(store, account, list.id, 'during');

    log('transactional-latency: starting the worker process and the API thread');
    const worker = await startWorkerProcess(stack, teardown, await prebuiltBundle(teardown));
    const apiBase = await startApiThread(stack.store.uri, DATABASE, teardown, {
      address: stack.temporal.address, namespace: herald.config.temporalNamespace, taskQueue: TASK_QUEUE,
    });
    await Promise.all([sink.track(SINGLE, { times: true }), sink.track(CAMPAIGN), sink.track(WARM_CAMPAIGN)]);
    const clockOffsetMs = await sink.clockOffsetMs();
    let next = 0; // the next single send's index (its address: recipientOf(index))
    // This process runs the API's and the load's threads (its main thread only waits).
    const processes = { worker: worker.pid!, temporal: stack.temporal.pid, store: stack.store.pid, sink: sink.pid, api_and_load: process.pid };

    log(`transactional-latency: warm-up: ${WARM_UP_SENDS} single sends, a ${WARM_UP_CONTACTS}-recipient campaign`);
    await runSendLoad({ apiBase, transactionalKey, first: next, count: WARM_UP_SENDS, concurrency: 10, timeoutMs: 60_000 }, () => undefined);
    next += WARM_UP_SENDS;
    await arrivalOf(sink, WARM_UP_SENDS, SINGLE);
    await launch(warmCampaign, '/bench/warm-up');
    await arrivalOf(sink, WARM_UP_CONTACTS, WARM_CAMPAIGN);
    await sentCampaign(store, warmCampaign);

    log(`transactional-latency: (1) what the stack sustains: ${BURST_SENDS} single sends from ${BURST_CLIENTS} clients`);
    const beforeBurst = await sink.count(SINGLE);
    let burstStarted = 0;
    const burst = await runSendLoad(
      { apiBase, transactionalKey, first: next, count: BURST_SENDS, concurrency: BURST_CLIENTS, timeoutMs: 120_000 },
      () => { burstStarted = performance.now(); },
    );
    next += BURST_SENDS;
    const burstLastAt = await arrivalOf(sink, beforeBurst + burst.results.length, SINGLE);
    const burstLost = Math.max(0, beforeBurst + burst.results.length - (await sink.count(SINGLE)));
    const sustainedPerS = burstLastAt === undefined ? NaN : perSecond(burst.results.length, burstLastAt - burstStarted);
    if (!(sustainedPerS > 0)) throw new Error(`no sustained rate: ${burst.results.length} accepted, ${burstLost} lost`);
    // HERALD_BENCH_STEADY_RATE fixes the steady rate, for A/B runs that the burst's noise would skew.
    const steadyRatePerS = Number(process.env.HERALD_BENCH_STEADY_RATE) || Math.max(1, Math.round(sustainedPerS / 2));
    log(`transactional-latency: sustained ${sustainedPerS} sends/s: the steady rate is ${steadyRatePerS}/s`);

    log(`transactional-latency: (2) the campaign alone (${CONTACTS} recipients)`);
    let cpu = cpuMeter(processes);
    const alone = await sendCampaign({ store, sink, launch }, aloneCampaign);
    const cpuAlone = cpu(alone.lastAt);
    await sentCampaign(store, aloneCampaign);

    const steady = (count: number): SteadyLoad => ({ apiBase, transactionalKey, first: next, ratePerS: steadyRatePerS, count });
    log(`transactional-latency: (3) single sends at ${steadyRatePerS}/s for ${IDLE_SECONDS} s, nothing else running`);
    const beforeIdle = await sink.count(SINGLE);
    const idleStream = await prepareSteadyLoad(steady(steadyRatePerS * IDLE_SECONDS), teardown);
    cpu = cpuMeter(processes);
    const idleResult = await idleStream.go();
    next += idleResult.started;
    const idle = await toRelay(sink, idleResult, beforeIdle);
    const cpuIdle = cpu();

    log(`transactional-latency: (4) single sends at ${steadyRatePerS}/s while the campaign sends again`);
    const beforeDuring = await sink.count(SINGLE);
    // No count: the campaign's last message stops it.
    const duringStream = await prepareSteadyLoad(steady(Infinity), teardown);
    let duringResult: Promise<SteadyResult> | undefined;
    let streamStartedAt = 0;
    cpu = cpuMeter(processes);
    const during = await sendCampaign({ store, sink, launch }, duringCampaign, () => {
      streamStartedAt = performance.now();
      duringResult = duringStream.go();
      duringResult.catch(() => undefined); // awaited once the campaign is over; a failure meanwhile must not end the process
    });
    duringStream.stop();
    const cpuDuring = cpu(during.lastAt);
    const duringSends = await duringResult!;
    next += duringSends.started;
    const withCampaign = await toRelay(sink, duringSends, beforeDuring);
    const campaignDuringState = (await sentCampaign(store, duringCampaign))?.state;

    const ratioP99 = round(withCampaign.p99 / idle.p99, 2);
    const ratioCampaign = round(during.perS / alone.perS, 2);
    const firstError = burst.firstError ?? idle.firstError ?? withCampaign.firstError;
    return {
      scenario: 'transactional-latency',
      sustained_sends_per_s: sustainedPerS,
      steady_rate_per_s: steadyRatePerS,
      p50_to_relay_idle_ms: idle.p50,
      p99_to_relay_idle_ms: idle.p99,
      max_to_relay_idle_ms: idle.max,
      p50_to_relay_during_campaign_ms: withCampaign.p50,
      p99_to_relay_during_campaign_ms: withCampaign.p99,
      max_to_relay_during_campaign_ms: withCampaign.max,
      ratio_p99_during_to_idle: ratioP99,
      campaign_per_s_alone: alone.perS,
      campaign_per_s_during: during.perS,
      ratio_campaign_during_to_alone: ratioCampaign,
      goal_p99_idle_met: idle.p99 <= GOALS.p99IdleMs,
      goal_p99_during_campaign_met: withCampaign.p99 <= GOALS.p99DuringMs,
      goal_ratio_p99_met: ratioP99 <= GOALS.ratioP99,
      goal_campaign_kept_met: ratioCampaign >= GOALS.campaignKept,
      sends_idle: idle.sends,
      sends_during_campaign: withCampaign.sends,
      lost_idle: idle.lost,
      lost_during_campaign: withCampaign.lost,
      request_errors_burst: burst.errors,
      request_errors_idle: idle.errors,
      request_errors_during_campaign: withCampaign.errors,
      ...(firstError ? { first_error: firstError } : {}),
      offered_per_s_idle: idle.offeredPerS,
      offered_per_s_during_campaign: withCampaign.offeredPerS,
      p50_accept_idle_ms: idle.p50Accept,
      p99_accept_idle_ms: idle.p99Accept,
      p50_accept_during_campaign_ms: withCampaign.p50Accept,
      p99_accept_during_campaign_ms: withCampaign.p99Accept,
      p99_start_lag_ms: Math.max(idle.p99StartLag, withCampaign.p99StartLag),
      burst_sends: burst.results.length,
      burst_lost: burstLost,
      campaign_recipients: CONTACTS,
      campaign_received_alone: alone.received,
      campaign_received_during: during.received,
      campaign_lost_alone: alone.lost,
      campaign_lost_during: during.lost,
      campaign_first_message_after_s_alone: alone.firstAfterS,
      campaign_first_message_after_s_during: during.firstAfterS,
      campaign_state_during: campaignDuringState,
      stream_started_after_launch_s: round((streamStartedAt - during.launchedAt) / 1000, 2),
      cpu_cores_campaign_alone: cpuAlone.cores,
      cpu_cores_idle: cpuIdle.cores,
      cpu_cores_during_campaign: cpuDuring.cores,
      cpu_ms_per_send_idle: cpuIdle.perEvent(idle.sends),
      cpu_ms_per_message_campaign_alone: cpuAlone.perEvent(CONTACTS),
      sink_clock_offset_ms: round(clockOffsetMs, 2),
      notes: `one worker process (node dist/worker.js, its V8 flags) on one task queue sends the campaigns and the single sends of one account; the API on a thread of its own; ` +
        `the store on its H2 file; sustained_sends_per_s = ${BURST_SENDS} single-recipient ~15 KB requests from ${BURST_CLIENTS} clients (as herald-send), first request to the sink's last message; ` +
        `steady_rate_per_s = half of it, open loop (each request started at its time, from a thread of its own); *_to_relay_* = each accepted send's 202 (at the client) to its whole message at the sink ` +
        `(end of DATA), both on performance.timeOrigin + performance.now(); idle = ${IDLE_SECONDS} s of single sends with nothing else running; during = single sends from the campaign's first message at the sink ` +
        `to its last; campaign_per_s_* = ${CONTACTS} recipients, launch (launchCampaign: task + CampaignLaunch workflow) to the sink's last message, alone then during, after a ${WARM_UP_CONTACTS}-recipient warm-up campaign ` +
        `and ${WARM_UP_SENDS} warm-up sends; lost_* = accepted sends (or campaign recipients) never seen at the sink; cpu_cores_* = each process's CPU time (every thread) over the phase's wall time, on 2 cores; cpu_ms_per_send_idle and cpu_ms_per_message_campaign_alone = the same CPU time per single send (idle phase) and per campaign message (campaign alone); ` +
        `goals (issue 35): p99 to relay <= ${GOALS.p99IdleMs} ms idle, <= ${GOALS.p99DuringMs} ms during, ratio <= ${GOALS.ratioP99}, campaign during >= ${GOALS.campaignKept} of alone`,
    };
  } finally {
    await teardown.run();
  }
}
