// `relays` (issue 36): several relays as an operator runs them, on the store's H2 file, Temporal and
// worker processes (`node dist/worker.js`) as campaign-send runs them, with counting sinks as relays.
// (1) Routing's cost: the same campaign sent by a worker with SMTP_RELAY_URL (one relay) and by one
//     with a three-relay file whose first two relays do not take it (a recipient domain, an
//     account), in turn, twice each: `ratio_routing` = the better three-relay rate over the better
//     one-relay rate (goal >= 0.95).
// (2) Failover: relays `primary` (campaigns) then `secondary` (anything); the primary's process is
//     crashed (its connections cut, its port closed) once it received a quarter of the campaign:
//     `failover_s` = the crash to the secondary's first message of the campaign (goal <= 5 s); every recipient delivered, and the
//     copies beyond one per recipient (`duplicates`) at most the messages in flight at the kill.
// (3) A rate held across two worker processes: one relay with `ratePerSecond`, two workers sending
//     two campaigns at once: the rate at the sink between its 10th and 90th percentile arrivals
//     against the file's, `rate_error` = |achieved - limit| / limit (goal <= 0.05).
// (4) 1,000 bounce events from the four providers' webhooks (./feedback-load.ts): recorded in <= 5 s, each once.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createAccount } from '../core/accounts/accounts';
import { launchCampaign } from '../core/campaigns/lifecycle';
import { createList } from '../core/contacts/lists';
import type { CampaignDoc } from '../adapters/store/store';
import { cpuSecondsOf, DATABASE, insertContacts, newCampaign, prebuiltBundle, sentCampaign, startWorkerProcess, TASK_QUEUE } from './campaign-send';
import { startCountingSink, type CountingSink } from './counting-sink';
import { measureFeedbackWebhooks } from './feedback-load';
import { composeBenchHerald, startBenchStack } from './herald-stack';
import { percentile, perSecond, round } from './stats';
import { log, Teardown, within } from './support';
import { SEND_CONCURRENCY } from '../core/sending/message-loop';

const CONTACTS = Number(process.env.HERALD_BENCH_RELAYS_CONTACTS ?? 20_000);
/** The rate limit of phase (3), messages a second across both workers. */
const RATE = Number(process.env.HERALD_BENCH_RELAYS_RATE ?? 300);
/** Messages of each campaign of phase (3): about 20 s at the limit with two campaigns. */
const RATE_CONTACTS = Math.round(RATE * 10);
/** Messages a page has in flight (core/sending/message-loop.ts SEND_CONCURRENCY): what a kill may catch. */
const IN_FLIGHT = SEND_CONCURRENCY;
const WARM_UP = 2_000;
/** Which phases run (HERALD_BENCH_RELAYS_PHASES, e.g. `2,4`; all by default). */
const PHASES = new Set((process.env.HERALD_BENCH_RELAYS_PHASES ?? '1,2,3,4').split(',').map(Number));

export async function runRelays(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const stack = await startBenchStack('relays', teardown, { storeFile: true });
    const herald = composeBenchHerald(stack, teardown, { HERALD_MONGODB_DATABASE: DATABASE, HERALD_TASK_QUEUE: TASK_QUEUE });
    const [store, temporal] = await Promise.all([herald.store(), herald.temporal()]);
    const { account } = await createAccount(store, 'benchrelays');
    const owner = { id: 1, username: 'bench' };
    const bundle = await prebuiltBundle(teardown);
    const dir = teardown.tempDir('herald-bench-relays-');
    const relaysFile = (name: string, file: object) => {
      const at = path.join(dir, `${name}.json`);
      fs.writeFileSync(at, JSON.stringify(file));
      return { HERALD_RELAYS_FILE: at, SMTP_RELAY_URL: '' };
    };
    let lists = 0;
    /** A campaign to `count` new contacts whose addresses start with `tag`. */
    const campaignOf = async (tag: string, count: number) => {
      const list = await createList(store, account, { name: tag });
      await insertContacts(store, account, list.id, 1_000_000 * (lists += 1), count, tag);
      return newCampaign(store, account, list.id, tag);
    };
    const launch = (campaign: CampaignDoc) => launchCampaign({ store, temporal, taskQueue: TASK_QUEUE }, campaign, { owner, request: `/bench/${campaign.name}`, launchDate: null });
    const stopWorker = async (worker: ChildProcess) => {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.kill('SIGTERM');
      await within(exited, 30_000, 'worker exit').catch(() => worker.kill('SIGKILL'));
    };
    /** Sends the campaign and resolves with its rate at `sink`: launch to the last of its recipients there. */
    const sendAll = async (campaign: CampaignDoc, sink: CountingSink, tag: string, count: number) => {
      await sink.track(tag);
      const launchedAt = performance.now();
      await launch(campaign);
      const lastAt = await sink.waitFor(count, 600_000, tag);
      return perSecond(count, lastAt - launchedAt);
    };

    const figures: Record<string, unknown> = {};
    const notes: string[] = [];

    // (1) Routing's cost.
    if (PHASES.has(1)) {
      const three = relaysFile('three', { relays: [
        { name: 'gmail', url: stack.sink.url, recipientDomains: ['gmail.com'] },
        { name: 'partner', url: stack.sink.url, accounts: ['someone-else'] },
        { name: 'main', url: stack.sink.url },
      ] });
      const rates: { one: number[]; three: number[] } = { one: [], three: [] };
      const cpu: { one: number[]; three: number[] } = { one: [], three: [] };
      for (const [round_, kind] of [[1, 'one'], [1, 'three'], [2, 'one'], [2, 'three']] as const) {
        const tag = `r${kind}${round_}x`;
        const [warm, campaign] = [await campaignOf(`w${tag}`, WARM_UP), await campaignOf(tag, CONTACTS)];
        log(`relays: (1) ${CONTACTS} recipients through a worker with ${kind === 'one' ? 'SMTP_RELAY_URL' : 'a three-relay file'} (round ${round_}, after a warm-up)`);
        const worker = await startWorkerProcess(stack, teardown, bundle, kind === 'one' ? {} : three);
        await sendAll(warm, stack.sink, `w${tag}`, WARM_UP);
        const cpuBefore = cpuSecondsOf(worker.pid!);
        rates[kind].push(await sendAll(campaign, stack.sink, tag, CONTACTS));
        cpu[kind].push(round(((cpuSecondsOf(worker.pid!) - cpuBefore) * 1000) / CONTACTS, 3));
        await stopWorker(worker);
      }
      const bestOne = Math.max(...rates.one);
      const bestThree = Math.max(...rates.three);
      // CPU per message moves less with the machine's load than the rate does.
      const cpuRatio = Math.min(...cpu.three) / Math.min(...cpu.one);
      Object.assign(figures, {
        one_relay_per_s: rates.one,
        three_relays_per_s: rates.three,
        ratio_routing: round(bestThree / bestOne, 3),
        goal_ratio_routing_met: bestThree / bestOne >= 0.95,
        worker_cpu_ms_per_message_one_relay: cpu.one,
        worker_cpu_ms_per_message_three_relays: cpu.three,
        ratio_routing_cpu: round(cpuRatio, 3),
      });
      notes.push(`(1) ${CONTACTS}-recipient campaigns, one worker at a time (each after a ${WARM_UP}-recipient warm-up), SMTP_RELAY_URL vs a file of three relays whose first two do not take the campaign (recipientDomains, accounts), ` +
        'alternating, two rounds each, launch to the sink\'s last recipient; ratio_routing = best three-relay rate over best one-relay rate; ' +
        'ratio_routing_cpu = the worker process\'s CPU per message (user + system, every thread), best three-relay over best one-relay (1.0: routing costs nothing)');
    }

    // (2) Failover.
    if (PHASES.has(2)) {
      const [primary, secondary] = [await startCountingSink(), await startCountingSink()];
      teardown.defer('failover sinks', async () => { await primary.stop(); await secondary.stop(); });
      const failoverFile = relaysFile('failover', { relays: [{ name: 'primary', url: primary.url, streams: ['campaign'] }, { name: 'secondary', url: secondary.url }] });
      const failover = await campaignOf('fo', CONTACTS);
      log(`relays: (2) ${CONTACTS} recipients through the primary relay, which crashes at a quarter`);
      const foWorker = await startWorkerProcess(stack, teardown, bundle, failoverFile);
      await Promise.all([primary.track('fo', { times: true }), secondary.track('fo', { times: true })]);
      await launch(failover);
      await primary.waitFor(Math.round(CONTACTS / 4), 600_000, 'fo');
      const crashedAt = (await primary.crash()) - (await primary.clockOffsetMs());
      await secondary.waitFor(1, 60_000, 'fo');
      const secondaryFirstAt = Math.min(...(await secondary.arrivals('fo')).values()) - (await secondary.clockOffsetMs());
      const primaryArrivals = await primary.arrivals('fo');
      // Every recipient: at the primary before it died, or at the secondary.
      let secondaryArrivals = new Map<string, number>();
      for (const deadline = Date.now() + 600_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 500))) {
        secondaryArrivals = await secondary.arrivals('fo');
        if (new Set([...primaryArrivals.keys(), ...secondaryArrivals.keys()]).size >= CONTACTS) break;
    }
    const [primaryCount, secondaryCount] = [await primary.count('fo'), await secondary.count('fo')];
    const distinct = new Set([...primaryArrivals.keys(), ...secondaryArrivals.keys()]).size;
    const final = await sentCampaign(store, failover);
    await stopWorker(foWorker);
    Object.assign(figures, {
      failover_s: round((secondaryFirstAt - crashedAt) / 1000, 2),
      goal_failover_met: (secondaryFirstAt - crashedAt) / 1000 <= 5,
      failover_delivered: distinct,
      failover_lost: CONTACTS - distinct,
      failover_primary_messages: primaryCount,
      failover_secondary_messages: secondaryCount,
      duplicates: primaryCount + secondaryCount - distinct,
      duplicates_bound: IN_FLIGHT,
      failover_campaign_state: final?.state,
    });
    notes.push('(2) relays primary (streams campaign) and secondary (anything), the primary sink crashed at a quarter of the campaign (every connection cut, its port closed); ' +
      'failover_s = the crash to the secondary\'s first message (the sinks\' clocks corrected); ' +
      `duplicates = copies beyond one per recipient across both sinks (bound: ${IN_FLIGHT}, a page's messages in flight)`);
    }

    // (3) A rate held across two workers.
    if (PHASES.has(3)) {
      const rateSink = await startCountingSink();
      teardown.defer('rate sink', () => rateSink.stop());
      const rateFile = relaysFile('rate', { relays: [{ name: 'limited', url: rateSink.url, ratePerSecond: RATE }] });
      const [c1, c2] = [await campaignOf('ra', RATE_CONTACTS), await campaignOf('rb', RATE_CONTACTS)];
      log(`relays: (3) two workers, two campaigns of ${RATE_CONTACTS}, one relay limited to ${RATE}/s`);
      const workers = [await startWorkerProcess(stack, teardown, bundle, rateFile), await startWorkerProcess(stack, teardown, bundle, rateFile)];
      await Promise.all([rateSink.track('ra', { times: true }), rateSink.track('rb', { times: true })]);
      await Promise.all([launch(c1), launch(c2)]);
      await Promise.all([rateSink.waitFor(RATE_CONTACTS, 600_000, 'ra'), rateSink.waitFor(RATE_CONTACTS, 600_000, 'rb')]);
      const times = [...(await rateSink.arrivals('ra')).values(), ...(await rateSink.arrivals('rb')).values()].sort((a, b) => a - b);
      const [p10, p90] = [percentile(times, 10), percentile(times, 90)];
      const achieved = perSecond(Math.round(times.length * 0.8), p90 - p10);
      let busiestSecond = 0;
      for (let i = 0, j = 0; i < times.length; i += 1) {
        while (times[j] < times[i] - 1000) j += 1;
        busiestSecond = Math.max(busiestSecond, i - j + 1);
    }
    for (const worker of workers) await stopWorker(worker);
    Object.assign(figures, {
      rate_limit_per_s: RATE,
      rate_achieved_per_s: achieved,
      rate_busiest_second: busiestSecond,
      rate_error: round(Math.abs(achieved - RATE) / RATE, 3),
      goal_rate_met: Math.abs(achieved - RATE) / RATE <= 0.05,
    });
    notes.push(`(3) two worker processes sending two ${RATE_CONTACTS}-recipient campaigns at once through one relay with ratePerSecond ${RATE}; ` +
      'rate_achieved_per_s = the middle 80% of arrivals over their span; busiest second = the most arrivals in any 1 s window');
    }

    // (4) Providers' webhooks.
    if (PHASES.has(4)) {
      Object.assign(figures, await measureFeedbackWebhooks(stack, teardown, dir));
      notes.push('(4) a 1,000-recipient request sent through an in-process API and worker, then a hard bounce of each message from SendGrid (batches of 50), Mailgun, Postmark and SES through SNS ' +
        '(one a request; a quarter each), signed with the bench\'s own keys, 20 requests at a time: webhook_record_s = first post to last answer; then all posted again (retries): webhook_events_after_retries must stay 1,000');
    }

    return { scenario: 'relays', recipients: CONTACTS, phases: [...PHASES], ...figures, notes: `store on its H2 file; workers = node dist/worker.js processes; ${notes.join('; ')}` };
  } finally {
    await teardown.run();
  }
}
