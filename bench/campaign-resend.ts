// `campaign-resend` (issue 37): what "resend to failed recipients" costs on a SENT campaign. Two
// campaigns of HERALD_BENCH_RESEND_CONTACTS (100,000 by default) are launched and sent to the
// counting sink by a worker process (node dist/worker.js) on the store's H2 file, as npm start runs
// it: one where every recipient is taken, one where the sink refuses 1% of the addresses (550, for
// good: each round sends them again and they fail again). Then resend rounds 1, 2 and 3 of each,
// one after the other, while a client reads `GET /v2/{account}` in a loop through the API.
// Figures: `launch_s` (launch to SENT, nothing failed), `resend_round_s` per round and case, the
// largest nothing-failed round over the launch (goal ≤ 0.1), the API's p99 during the rounds
// (`api_p99_during_ms`, goal ≤ 250 ms) and the store's CPU per round.
import type { AddressInfo } from 'node:net';
import { createAccount } from '../core/accounts/accounts';
import { launchCampaign, resendFailed } from '../core/campaigns/lifecycle';
import { createList } from '../core/contacts/lists';
import type { CampaignDoc, Store } from '../adapters/store/store';
import { ACTIVE_STATES, findTask } from '../core/tasks/tasks';
import { cpuSecondsOf, DATABASE, insertContacts, newCampaign, prebuiltBundle, startWorkerProcess, TASK_QUEUE } from './campaign-send';
import { composeBenchHerald, startBenchStack } from './herald-stack';
import { percentile, round } from './stats';
import { log, Teardown } from './support';

const CONTACTS = Number(process.env.HERALD_BENCH_RESEND_CONTACTS ?? 100_000);
const ROUNDS = 3;
/** The part of the second campaign's audience the sink refuses. */
const FAILED_SHARE = 0.01;
const OWNER = { id: 1, username: 'bench' };

export async function runCampaignResend(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const stack = await startBenchStack('campaign-resend', teardown, { storeFile: true });
    const herald = composeBenchHerald(stack, teardown, { HERALD_MONGODB_DATABASE: DATABASE, HERALD_TASK_QUEUE: TASK_QUEUE });
    const [store, temporal] = await Promise.all([herald.store(), herald.temporal()]);
    const deps = { store, temporal, taskQueue: TASK_QUEUE };
    const { account, apiKey } = await createAccount(store, 'benchresend');
    const api = await herald.apiServer();
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;

    const failing = Math.round(CONTACTS * FAILED_SHARE);
    log(`campaign-resend: inserting 2 x ${CONTACTS} contacts (${failing} of the second list refused by the sink)`);
    const [allTaken, someFail] = [await createList(store, account, { name: 'All taken' }), await createList(store, account, { name: 'Some fail' })];
    await insertContacts(store, account, allTaken.id, 1, CONTACTS, 'person');
    await insertContacts(store, account, someFail.id, CONTACTS + 1, CONTACTS - failing, 'alive');
    await insertContacts(store, account, someFail.id, 2 * CONTACTS - failing + 1, failing, 'dead');
    await stack.sink.refuse('dead');
    const campaigns = { nothing_failed: await newCampaign(store, account, allTaken.id, 'All taken'), one_percent_failed: await newCampaign(store, account, someFail.id, 'Some fail') };

    await startWorkerProcess(stack, teardown, await prebuiltBundle(teardown));
    const launch_s: Record<string, number> = {};
    for (const [name, campaign] of Object.entries(campaigns)) {
      log(`campaign-resend: launching ${name} (${CONTACTS} recipients)`);
      const startedAt = performance.now();
      await launchCampaign(deps, campaign, { owner: OWNER, request: '/bench/launch', launchDate: null });
      await until(async () => (await stateOf(store, campaign)) === 'SENT', 1_800_000, `${name} SENT`);
      launch_s[name] = round((performance.now() - startedAt) / 1000, 1);
    }

    const reads = readAccountInALoop(base, account, apiKey);
    const resend_round_s: Record<string, number[]> = {};
    const store_cpu_s: Record<string, number[]> = {};
    for (const [name, campaign] of Object.entries(campaigns)) {
      resend_round_s[name] = [];
      store_cpu_s[name] = [];
      for (let n = 1; n <= ROUNDS; n += 1) {
        log(`campaign-resend: ${name}, round ${n}`);
        const cpuBefore = cpuSecondsOf(stack.store.pid);
        const startedAt = performance.now();
        const task = await resendFailed(deps, (await store.campaigns.findOne({ _id: campaign._id, account }))!, { owner: OWNER, request: `/bench/resend/${n}` });
        const finished = await until(async () => {
          const doc = await findTask(store, account, task.id);
          return doc && !ACTIVE_STATES.includes(doc.state) ? doc : undefined;
        }, 1_800_000, `${name} round ${n}`);
        if (finished.state !== 'FINISHED') throw new Error(`${name} round ${n}: ${finished.state} ${finished.message}`);
        resend_round_s[name].push(round((performance.now() - startedAt) / 1000, 2));
        store_cpu_s[name].push(round(cpuSecondsOf(stack.store.pid) - cpuBefore, 2));
      }
    }
    const latencies = await reads.stop();
    const worst = Math.max(...resend_round_s.nothing_failed);
    const p99 = round(percentile(latencies, 99), 1);
    const delivered = await stack.sink.count();
    return {
      scenario: 'campaign-resend',
      recipients: CONTACTS,
      failed_per_round: failing,
      launch_s: launch_s.nothing_failed,
      launch_s_one_percent_failed: launch_s.one_percent_failed,
      resend_round_s,
      round_to_launch: round(worst / launch_s.nothing_failed, 3),
      store_cpu_s_per_round: store_cpu_s,
      api_requests_during: latencies.length,
      api_p50_during_ms: round(percentile(latencies, 50), 1),
      api_p99_during_ms: p99,
      delivered,
      delivered_expected: 2 * CONTACTS - failing,
      goal_round_met: worst <= 0.1 * launch_s.nothing_failed,
      goal_api_p99_met: p99 <= 250,
      notes: 'two campaigns launched one after the other to the counting sink, which refuses the second\'s 1% (550, every time); then resend rounds 1-3 of each ' +
        '(resendFailed: a CAMPAIGN_RESEND task, timed from the call to the task FINISHED) while one client reads GET /v2/{account} in a loop; ' +
        'the store on its H2 file, worker = node dist/worker.js',
    };
  } finally {
    await teardown.run();
  }
}

async function stateOf(store: Store, campaign: CampaignDoc): Promise<string | undefined> {
  return (await store.campaigns.findOne({ _id: campaign._id, account: campaign.account }, { projection: { state: 1 } }))?.state;
}

/** Polls `check` until it gives a value, every 200 ms; fails after `timeoutMs` naming `what`. */
async function until<T>(check: () => Promise<T | undefined | false | null>, timeoutMs: number, what: string): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/** One client reading the account (GET /v2/{account}) back to back until stopped: each answer's time. */
function readAccountInALoop(base: string, account: string, apiKey: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const sentAt = performance.now();
      const response = await fetch(`${base}/v2/${account}`, { headers: { authorization: `Bearer ${apiKey}` } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET /v2/${account} answered ${response.status}`);
      latencies.push(performance.now() - sentAt);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return { async stop() { stopped = true; await loop; return latencies; } };
}
