// Many sends of one account over HTTP, gathered: they reach the account's one AccountSender
// workflow as signals, go out in fewer attempts than requests, the workflow continues as new when
// its searchable list of batch ids is full (the test stack's Temporal has the default 2 KB limit),
// and every request's batch id finds its run in Temporal's visibility.
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';

let herald: TestHerald;
let account: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  account = await herald.newAccount();
});
afterAll(() => herald?.stop());

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

it('gathers 80 concurrent requests into one continuing workflow, each searchable by its batch id', async () => {
  const REQUESTS = 80;
  const before = herald.sink.received.length;
  const answers = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: { authorization: `Bearer ${account.transactionalKey}` },
    json: { from: { email: 'shop@example.com' }, subject: `Order ${i}`, content: { text: `Order ${i} shipped` }, recipients: [{ to: { email: `g${i}@example.net` } }] },
  })));
  expect(answers.map((a) => a.status)).toEqual(Array(REQUESTS).fill(202));
  const batchIds = answers.map((a) => a.headers.get('herald-batch-id')!);
  expect(new Set(batchIds).size).toBe(REQUESTS);

  const mails = (await herald.sink.waitFor(before + REQUESTS, 60000)).slice(before);
  expect(mails.map((m) => m.rcptTo[0]).sort()).toEqual(Array.from({ length: REQUESTS }, (_, i) => `g${i}@example.net`).sort());

  // All of them went through the account's AccountSender, whose runs continued as new.
  const { temporal } = herald.services;
  const workflowId = `sender-${account.account}`;
  const runs = await eventually('the AccountSender runs', async () => {
    const found: WorkflowExecutionInfo[] = [];
    for await (const info of temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) found.push(info);
    return found.length >= 2 ? found : undefined;
  });
  expect(runs.every((run) => run.type === 'AccountSender')).toBe(true);
  expect(runs.filter((run) => run.status.name === 'CONTINUED_AS_NEW').length).toBeGreaterThanOrEqual(1);

  // Fewer send attempts than requests: requests arriving together were sent together.
  let attempts = 0;
  for (const run of runs) {
    const history = await temporal.workflow.getHandle(workflowId, run.runId).fetchHistory();
    attempts += (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendRequests').length;
  }
  expect(attempts).toBeGreaterThan(0);
  expect(attempts).toBeLessThan(REQUESTS);

  // Every batch id finds the run that sent it (visibility catches up within moments).
  const listed = await eventually('every batch id listed', async () => {
    const seen = new Set<string>();
    for await (const info of temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      for (const id of (info.searchAttributes?.HeraldBatches as string[] | undefined) ?? []) seen.add(id);
    }
    return batchIds.every((id) => seen.has(id)) ? seen : undefined;
  });
  expect(listed.size).toBeGreaterThanOrEqual(REQUESTS);
  const one = batchIds[REQUESTS - 1];
  const found: WorkflowExecutionInfo[] = [];
  for await (const info of temporal.workflow.list({ query: `HeraldBatches = '${one}'` })) found.push(info);
  expect(found.map((info) => info.workflowId)).toEqual([workflowId]);
}, 120000);
