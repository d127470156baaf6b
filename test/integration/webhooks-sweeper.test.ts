// The webhook sweeper on the dev server (the time-skipping server has no Schedules): its
// schedule exists once the worker started; a delivery workflow terminated midway through a
// backlog is started again by a sweep, and the rest of the backlog arrives; a retry batch whose
// workflow was terminated before its timer fired is run by a sweep once overdue.
import type { NewAccount } from '../../core/accounts/accounts';
import { triggerWebhookSweep } from '../../core/webhooks/lifecycle';
import { workflowIds } from '../../adapters/temporal/contracts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type CallOptions } from '../support/http';
import { storeSyntheticEvents } from '../support/webhook-events';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { safetyNet } from '../support/safety-net';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
let acme: NewAccount;
let receiver: WebhookReceiver;

const BACKLOG = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  // Small requests, one at a time: a backlog of a thousand events takes seconds, long enough to be cut in the middle (400 was not, on a busy machine).
  [herald, receiver] = await Promise.all([startTestHerald({ webhookTuning: { maxEventsPerRequest: 5, concurrency: 1 } }), startWebhookReceiver()]);
  acme = await herald.newAccount();
  // Sweeps run when the test says so, not on the minute.
  await herald.services.temporal.schedule.getHandle(workflowIds.webhookSweeper(herald.services.taskQueue)).pause('sweeps triggered by the test');
});
afterAll(async () => {
  await herald?.stop();
  await receiver?.close();
});

const api = (method: string, path: string, options: CallOptions = {}) =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}${path}`, { ...options, headers: { authorization: `Bearer ${acme.apiKey}` } });
const requestsTo = (query: string) => receiver.requests.filter((r) => r.path.endsWith(`?${query}`));
const distinct = (query: string) => new Set(requestsTo(query).flatMap((r) => r.events.map((e: { track_id: string }) => e.track_id)));
const deliveryHandle = (endpointId: number) => herald.services.temporal.workflow.getHandle(workflowIds.webhookDelivery(acme.account, endpointId));

it('starts the sweeper schedule with the worker', async () => {
  const description = await herald.services.temporal.schedule.getHandle(workflowIds.webhookSweeper(herald.services.taskQueue)).describe();
  expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'WebhookSweep', taskQueue: herald.services.taskQueue });
  expect(description.spec.intervals).toMatchObject([{ every: 60_000 }]);
});

it('restarts a delivery workflow terminated midway, and the rest of the backlog arrives', async () => {
  // From its 20th request on the receiver holds its answers until the workflow is terminated: the
  // backlog is cut midway whenever the pass learns of the termination (at a heartbeat, seconds later).
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  receiver.answer = async () => {
    if (requestsTo('backlog').length > 20) await released;
    return 200;
  };
  const { id } = (await api('POST', '/webhooks', { json: { url: `${receiver.url}?backlog` } })).body.data;
  const trackIds = await storeSyntheticEvents(herald.services.store, acme.account, BACKLOG);
  await receiver.waitFor('the first requests', () => requestsTo('backlog').length > 20, 60_000);
  const { runId: firstRun } = await deliveryHandle(id).describe();
  await deliveryHandle(id).terminate('test: a lost workflow');
  expect(distinct('backlog').size).toBeLessThan(BACKLOG); // cut midway
  expect((await deliveryHandle(id).describe()).status.name).toBe('TERMINATED');

  receiver.answer = () => 200;
  release();
  // A sweep starts the workflow again. Swept again every 5 s until the rest arrived: a held answer
  // that came after the poster's 10-s timeout left its batch as a retry, which a sweep runs once overdue (a minute).
  await waitUntil('the rest of the backlog', async () => {
    if (distinct('backlog').size >= BACKLOG) return true;
    await triggerWebhookSweep(herald.services.temporal, herald.services.taskQueue);
    return false;
  }, safetyNet(120_000), 5000);
  expect(distinct('backlog')).toEqual(new Set(trackIds));
  const restarted = await deliveryHandle(id).describe();
  expect(restarted.status.name).toBe('RUNNING');
  expect(restarted.runId).not.toBe(firstRun);
}, 240_000);

it('runs a retry batch left behind by a terminated workflow once it is overdue', async () => {
  const { id } = (await api('POST', '/webhooks', { json: { url: `${receiver.url}?left` } })).body.data;
  receiver.answer = (request) => (request.path.endsWith('?left') && request.headers['herald-attempt'] === '1' ? 500 : 200);
  const trackIds = await storeSyntheticEvents(herald.services.store, acme.account, 2);
  const { store } = herald.services;
  const retryOf = () => store.webhookRetries.findOne({ account: acme.account, endpointId: id });
  while (!(await retryOf())) await sleep(200);
  await deliveryHandle(id).terminate('test: its retry timer is lost');
  // As if its minute had passed long ago, with nobody to run it.
  await store.webhookRetries.updateOne({ account: acme.account, endpointId: id }, { $set: { dueAt: new Date(Date.now() - 120_000) } });
  expect(requestsTo('left').filter((r) => r.headers['herald-attempt'] === '2')).toHaveLength(0);

  await triggerWebhookSweep(herald.services.temporal, herald.services.taskQueue);
  await receiver.waitFor('the retry', () => requestsTo('left').some((r) => r.headers['herald-attempt'] === '2'), 60_000);
  const retried = requestsTo('left').filter((r) => r.headers['herald-attempt'] === '2');
  expect(retried).toHaveLength(1);
  expect(retried[0].events.map((e) => e.track_id)).toEqual(trackIds);
  while (await retryOf()) await sleep(200);
  const log = await api('GET', `/webhooks/${id}/deliveries?sortdir=asc`);
  expect(log.body.data.map((e: { outcome: string; attempt: number; track_ids: string[] }) => [e.outcome, e.attempt, e.track_ids]))
    .toEqual([['failed', 1, trackIds], ['delivered', 2, trackIds]]);
  expect((await deliveryHandle(id).describe()).status.name).toBe('RUNNING'); // the same sweep started it again
}, 120_000);
