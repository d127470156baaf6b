// `api-under-load` (issue 39 §3): light API calls while bulk jobs keep the store busy. 100,000
// contacts in five lists of 20,000 on the store's H2 file (as npm start runs it), a worker process;
// four clients call light routes back to back (GET /v2/{account}, GET /lists, GET a contact, a
// single POST /v1/mail/send), first alone (the same run's reference), then while a dozen exports
// of 20,000 contacts, an import of 20,000 rows and a 100,000-contact campaign run at once.
// Figures: `api_p99_ms_idle`, `api_p99_ms_during_jobs` (goal ≤ 250 ms), `errors_503` (goal 0).
import type { AddressInfo } from 'node:net';
import { createAccount } from '../core/accounts/accounts';
import { createCampaign } from '../core/campaigns/campaigns';
import { createContent, setHtmlBody } from '../core/campaigns/content-record';
import { createList } from '../core/contacts/lists';
import { CAMPAIGN_CONTENT, campaignHtml, DATABASE, insertContacts, prebuiltBundle, startWorkerProcess, TASK_QUEUE } from './campaign-send';
import { composeBenchHerald, startBenchStack } from './herald-stack';
import { percentile, round } from './stats';
import { log, Teardown } from './support';

const LISTS = 5;
const PER_LIST = Number(process.env.HERALD_BENCH_LOAD_CONTACTS_PER_LIST ?? 20_000);
const EXPORTS = 12;
const CLIENTS = 4;
const IDLE_MS = 15_000;
const WARM_UP_MS = 5_000;
const JOBS_TIMEOUT_MS = 30 * 60_000;

interface Tally { latencies: number[]; by: Record<string, number[]>; statuses: Record<string, number> }

export async function runApiUnderLoad(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const stack = await startBenchStack('api-under-load', teardown, { storeFile: true });
    const herald = composeBenchHerald(stack, teardown, { HERALD_MONGODB_DATABASE: DATABASE, HERALD_TASK_QUEUE: TASK_QUEUE });
    const store = await herald.store();
    const { account, apiKey, transactionalKey } = await createAccount(store, 'benchload');
    const api = await herald.apiServer();
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}/v2/${account}`;
    const apiRoot = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const auth = { authorization: `Bearer ${apiKey}` };

    log(`api-under-load: inserting ${LISTS} x ${PER_LIST} contacts`);
    const lists = [];
    for (let i = 0; i < LISTS; i += 1) {
      const list = await createList(store, account, { name: `List ${i + 1}` });
      await insertContacts(store, account, list.id, 1 + i * PER_LIST, PER_LIST, `l${i}p`);
      lists.push(list.id);
    }
    const campaign = await createCampaign(store, account, { name: 'Everyone', include: { lists } });
    const content = await createContent(store, campaign, CAMPAIGN_CONTENT);
    await setHtmlBody(store, { ...campaign, content }, content, campaignHtml());
    await startWorkerProcess(stack, teardown, await prebuiltBundle(teardown));

    const light = lightCalls(apiRoot, base, auth, transactionalKey);
    log('api-under-load: light calls alone');
    await light.measure(WARM_UP_MS); // the first calls compile code paths and start the send machinery: not what is measured
    const idle = await light.measure(IDLE_MS);

    log(`api-under-load: ${EXPORTS} exports, an import of ${PER_LIST} rows and a ${LISTS * PER_LIST}-contact campaign, with the light calls`);
    const measuring = light.measureUntilStopped();
    const startedAt = performance.now();
    const post = async (path: string, json?: unknown) => {
      const response = await fetch(`${base}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(json ?? {}) });
      const text = await response.text();
      if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text}`);
      return JSON.parse(text) as { task: { id: number } };
    };
    const tasks: number[] = [];
    for (let i = 0; i < EXPORTS; i += 1) tasks.push((await post(`/lists/${lists[i % LISTS]}/export`)).task.id);
    const rows = ['email,first name', ...Array.from({ length: PER_LIST }, (_, i) => `imported${i}@example.test,Imported${i}`)];
    tasks.push((await post('/contacts/import', { sourceRaw: rows.join('\n'), list: lists[0] })).task.id);
    tasks.push((await post(`/campaigns/${campaign.id}/launch`)).task.id);
    // Each task's end (seconds from the jobs' start), named by its type, id and final state.
    const jobSeconds: Record<string, number> = {};
    const pending = new Set(tasks);
    const deadline = Date.now() + JOBS_TIMEOUT_MS;
    while (pending.size > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const id of pending) {
        const task = await store.tasks.findOne({ _id: `${account}:${id}`, account });
        if (!task || !['FINISHED', 'FAILED', 'CANCELLED'].includes(task.state)) continue;
        jobSeconds[`${task.type} ${id} ${task.state}`] = round((performance.now() - startedAt) / 1000, 1);
        pending.delete(id);
      }
    }
    const sentDeadline = Date.now() + JOBS_TIMEOUT_MS;
    while ((await store.campaigns.findOne({ _id: campaign._id, account }, { projection: { state: 1 } }))?.state !== 'SENT' && Date.now() < sentDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const jobsS = round((performance.now() - startedAt) / 1000, 1);
    const during = await measuring.stop();
    const p99 = round(percentile(during.latencies, 99), 1);
    const errors503 = during.statuses['503'] ?? 0;
    return {
      scenario: 'api-under-load',
      contacts: LISTS * PER_LIST,
      api_requests_idle: idle.latencies.length,
      api_p50_ms_idle: round(percentile(idle.latencies, 50), 1),
      api_p99_ms_idle: round(percentile(idle.latencies, 99), 1),
      api_p99_ms_idle_by_call: Object.fromEntries(Object.entries(idle.by).map(([call, ms]) => [call, round(percentile(ms, 99), 1)])),
      api_requests_during_jobs: during.latencies.length,
      api_p50_ms_during_jobs: round(percentile(during.latencies, 50), 1),
      api_p99_ms_during_jobs: p99,
      api_p99_ms_during_jobs_by_call: Object.fromEntries(Object.entries(during.by).map(([call, ms]) => [call, round(percentile(ms, 99), 1)])),
      api_max_ms_during_jobs: round(Math.max(...during.latencies), 1),
      statuses_during_jobs: during.statuses,
      errors_503: errors503,
      jobs_s: jobsS,
      job_seconds: jobSeconds,
      goal_api_p99_met: p99 <= 250,
      goal_no_503_met: errors503 === 0,
      notes: `${CLIENTS} clients calling GET /v2/{account}, GET /lists?limit=10, GET /contacts/{id} and POST /v1/mail/send in turn, back to back; ` +
        `first alone for ${IDLE_MS / 1000} s (after ${WARM_UP_MS / 1000} s of warm-up), then while ${EXPORTS} list exports of ${PER_LIST}, an import of ${PER_LIST} rows and a campaign to all ${LISTS * PER_LIST} contacts run, until all ended; ` +
        'the store on its H2 file, worker = node dist/worker.js, the API in this process',
    };
  } finally {
    await teardown.run();
  }
}

/** The light calls, each client going round them back to back; a 503 or another refusal is counted by status. */
function lightCalls(apiRoot: string, base: string, auth: Record<string, string>, transactionalKey: string) {
  let n = 0;
  const calls: Array<[string, () => Promise<Response>]> = [
    ['GET /v2/{account}', () => fetch(base, { headers: auth })],
    ['GET /lists', () => fetch(`${base}/lists?limit=10`, { headers: auth })],
    ['GET /contacts/{id}', () => fetch(`${base}/contacts/${1 + ((n * 7919) % 1000)}`, { headers: auth })],
    ['POST /v1/mail/send', () => fetch(`${apiRoot}/v1/mail/send`, {
      method: 'POST', headers: { authorization: `Bearer ${transactionalKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: { email: 'shop@example.test' }, subject: `Light ${n}`, content: { text: 'hello' }, recipients: [{ to: { email: `light${n}@example.test` } }] }),
    })],
  ];
  const run = (tally: Tally, stopped: () => boolean) => Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    for (let i = client; !stopped(); i += 1) {
      const [name, call] = calls[i % calls.length];
      n += 1;
      const sentAt = performance.now();
      let status = 'none';
      try {
        const response = await call();
        await response.arrayBuffer();
        status = String(response.status);
      } catch { /* counted as none */ }
      const ms = performance.now() - sentAt;
      tally.latencies.push(ms);
      (tally.by[name] ??= []).push(ms);
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
    }
  }));
  const fresh = (): Tally => ({ latencies: [], by: {}, statuses: {} });
  return {
    async measure(ms: number): Promise<Tally> {
      const tally = fresh();
      const until = performance.now() + ms;
      await run(tally, () => performance.now() >= until);
      return tally;
    },
    measureUntilStopped() {
      const tally = fresh();
      let stopped = false;
      const running = run(tally, () => stopped);
      return { async stop() { stopped = true; await running; return tally; } };
    },
  };
}
