// The one-minute retry of a failed webhook POST, on the time-skipping test server: the real
// WebhookDelivery workflow and its real activities (the suite's store, a real HTTP receiver that
// refuses everything). Exactly two POSTs of the same events, 60 s apart in workflow time, then
// the events are discarded and the discard is in the endpoint's deliveries log; no third POST.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { ObjectId } from 'mongodb';
import { createWebhookActivities } from '../../activities/webhooks';
import { newId } from '../../core/shared/ids';
import { metrics } from '../../adapters/metrics/registry';
import { connectStore, type Store } from '../../adapters/store/store';
import { createEndpoint } from '../../core/webhooks/endpoints';
import { verifySignature } from '../../core/webhooks/signature';
import { workflowIds, type WebhookDeliveryInput } from '../../adapters/temporal/contracts';
import { temporalTestServerPath } from '../../infra/python-tools';
import { installTestTemporalRuntime } from '../support/temporal-logs';
import { testWorkflowCode } from '../support/workflow-bundle';
import { storeSyntheticEvents } from '../support/webhook-events';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

let env: TestWorkflowEnvironment;
let store: Store;
let receiver: WebhookReceiver;

beforeAll(async () => {
  installTestTemporalRuntime();
  [env, store, receiver] = await Promise.all([
    TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: await temporalTestServerPath() } } }),
    connectStore(process.env.MONGODB_URI!.replace(/^(mongodb:\/\/[^/?]+)\/[^?]*/, '$1/'), `herald_test_${newId().slice(0, 10)}`),
    startWebhookReceiver(),
  ]);
}, 120_000);
afterAll(async () => {
  await store?.db.dropDatabase().catch(() => undefined);
  await store?.close();
  await receiver?.close();
  await env?.teardown();
});

const discarded = async () => (await metrics.webhookEventsDiscarded.get()).values.reduce((sum, v) => sum + v.value, 0);

it('retries a refused POST exactly once, 60 s later in workflow time, then discards its events and logs it', async () => {
  const account = 'acme';
  const endpoint = await createEndpoint(store, account, { url: receiver.url }, true);
  // The endpoint started a minute ago, and its events are settled already: no waiting in real time.
  await store.webhooks.updateOne({ _id: endpoint._id }, { $set: { cursor: ObjectId.createFromTime(Math.floor(Date.now() / 1000) - 60) } });
  const trackIds = await storeSyntheticEvents(store, account, 3, ['track.mail.opened', 'track.mail.clicked'], 20_000);
  const serverTimes: number[] = [];
  receiver.answer = async () => {
    serverTimes.push(await env.currentTimeMs());
    return 500;
  };
  const discardedBefore = await discarded();

  const taskQueue = `webhook-${newId().slice(0, 8)}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...testWorkflowCode(),
    activities: createWebhookActivities({ store, webhookAllowPrivate: true }),
  });
  const log = () => store.webhookLog.find({ account, endpointId: endpoint.id }).sort({ _id: 1 }).toArray();
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('WebhookDelivery', {
      taskQueue,
      workflowId: workflowIds.webhookDelivery(account, endpoint.id),
      // One read per pass (then a 1 s timer): the test server skips time only while no activity runs.
      args: [{ account, endpointId: endpoint.id, passMs: 0 } satisfies WebhookDeliveryInput],
    });
    for (let i = 0; i < 60 && !(await log()).some((entry) => entry.outcome === 'discarded'); i += 1) await env.sleep(5000);
    await env.sleep(180_000); // three more minutes: no third attempt comes
    await handle.terminate('test over');
  });

  expect(receiver.requests).toHaveLength(2);
  expect(receiver.requests.map((r) => r.headers['herald-attempt'])).toEqual(['1', '2']);
  for (const request of receiver.requests) {
    expect(request.events.map((e) => e.track_id)).toEqual(trackIds);
    expect(verifySignature(endpoint.secret, request.rawBody, request.headers['herald-signature'] as string, Infinity)).toBe(true);
  }
  const apart = serverTimes[1] - serverTimes[0];
  expect(apart).toBeGreaterThanOrEqual(59_000);
  expect(apart).toBeLessThan(62_000);

  const entries = await log();
  expect(entries.map((e) => [e.outcome, e.attempt, e.status, e.eventCount])).toEqual([['failed', 1, 500, 3], ['discarded', 2, 500, 3]]);
  expect(entries.map((e) => e.trackIds)).toEqual([trackIds, trackIds]);
  expect(entries[1].error).toContain('HTTP 500');
  expect(await store.webhookRetries.countDocuments({ account })).toBe(0);
  expect(await discarded()).toBe(discardedBefore + 3);
}, 120_000);
