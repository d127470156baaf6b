// The one-minute retry of a failed webhook POST, on the time-skipping test server: the real
// WebhookDelivery workflow and its real activities (the suite's store, a real HTTP receiver).
// Refused twice: exactly two POSTs of the same events, 60 s apart in workflow time, then the
// events are discarded and the discard is in the endpoint's deliveries log; no third POST.
// Refused once: newer events go out meanwhile, the refused ones come again exactly once a minute
// later, and the log shows the failure and the delivered retry (the dev-server side of it, the
// failure in GET …/deliveries while newer events go out, is test/integration/webhooks-delivery).
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { createWebhookActivities } from '../../activities/webhooks';
import { newId } from '../../core/shared/ids';
import { metrics } from '../../adapters/metrics/registry';
import { connectStore, type Store, type WebhookDoc } from '../../adapters/store/store';
import { createEndpoint } from '../../core/webhooks/endpoints';
import { verifySignature } from '../../core/webhooks/signature';
import { workflowIds, type WebhookDeliveryInput } from '../../adapters/temporal/contracts';
import { temporalTestServerPath } from '../../infra/python-tools';
import { installTestTemporalRuntime } from '../support/temporal-logs';
import { peekTemporalLogs } from '../support/temporal-log-buffer';
import { safetyNet } from '../support/safety-net';
import { testWorkflowCode } from '../support/workflow-bundle';
import { deliveryView } from '../../core/webhooks/deliveries';
import { rewindCursor, storeSyntheticEvents } from '../support/webhook-events';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// The time-skipping server can strand a run: a workflow task that cancels a timer which fired
// meanwhile is refused and never sent again (temporalio/sdk-java#2606, #3088), and WebhookDelivery
// cancels a timer whenever a pass ends first. Rare; the run's history then stops growing, while
// the server's clock stands or, at times, still moves: once no event came for STRANDED_AFTER_MS of
// real time the attempt ends, and it runs again (on a receiver, an account and a task queue of its
// own). A healthy run adds events every pass (a second of workflow time at most), so a minute
// without one is stranded however time moved; the rule once also asked that time stood still, and
// a stranded run whose clock still moved in part went on for all of its workflow time (a
// fresh-clone run: 386 s for this file). A busy machine only makes the events slower (workflow
// tasks of 12 s were seen beside a second suite, where the older rule, three slow steps in a row,
// ended every attempt): the bound is a safety net, far above that. It also makes the race likelier (a timer fires while a slow workflow task is
// being run): a fresh-clone CI run saw two attempts in a row stranded, so up to three more attempts.
jest.retryTimes(3, { logErrorsBeforeRetry: true });
const STRANDED_AFTER_MS = safetyNet(20_000);

let env: TestWorkflowEnvironment;
let store: Store;

beforeAll(async () => {
  installTestTemporalRuntime();
  [env, store] = await Promise.all([
    TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: await temporalTestServerPath() } } }),
    connectStore(process.env.MONGODB_URI!.replace(/^(mongodb:\/\/[^/?]+)\/[^?]*/, '$1/'), `herald_test_${newId().slice(0, 10)}`),
  ]);
}, 120_000);
afterAll(async () => {
  await store?.db.dropDatabase().catch(() => undefined);
  await store?.close();
  await env?.teardown();
});

/** The core's refusal of a workflow task's completion: the race above; the server never sends that task again. */
const REFUSED_COMPLETION = 'invalid history builder state';

/**
 * Skips workflow time 5 s at a time, until `done` or `workflowMs` skipped; a stranded run ends it
 * (see above): at once when the core logged the refused completion and the next skip brought no
 * event, else after STRANDED_AFTER_MS without one.
 */
async function skipUntil(run: WorkflowHandle, done: () => boolean | Promise<boolean>, workflowMs: number): Promise<void> {
  const progress = async () => {
    const { runId, historyLength } = await run.describe();
    return `${runId}:${historyLength}`;
  };
  const logsBefore = peekTemporalLogs(globalThis).length;
  const refusedCompletion = () => peekTemporalLogs(globalThis).slice(logsBefore).some((line) => line.includes(REFUSED_COMPLETION));
  let last = await progress();
  let stalledSince: number | undefined; // the start of the real time in which no event came
  for (let skipped = 0; skipped < workflowMs && !(await done()); skipped += 5000) {
    const started = Date.now();
    const refusedBefore = refusedCompletion();
    await env.sleep(5000);
    const now = await progress();
    if (now !== last) {
      last = now;
      stalledSince = undefined;
    } else if (refusedBefore) {
      throw new Error('the core logged a refused workflow task completion and no event came since: a run stranded by the test server (temporalio/sdk-java#3088)');
    } else if (Date.now() - (stalledSince ??= started) >= STRANDED_AFTER_MS) {
      throw new Error(`no new event in the run's history for ${STRANDED_AFTER_MS} ms of real time: a run stranded by the test server (temporalio/sdk-java#3088)?`);
    }
  }
}

/** Runs `test` with a receiver of its own (closed after), and a new account name. */
async function withReceiver(test: (receiver: WebhookReceiver, account: string) => Promise<void>): Promise<void> {
  const receiver = await startWebhookReceiver();
  try {
    await test(receiver, `acct${newId().slice(0, 8)}`);
  } finally {
    await receiver.close();
  }
}

/** A worker on a task queue of its own, with the real webhook activities. */
const webhookWorker = (taskQueue: string) => Worker.create({
  connection: env.nativeConnection,
  taskQueue,
  ...testWorkflowCode(),
  activities: createWebhookActivities({ store, webhookAllowPrivate: true }),
});

/** The endpoint's delivery, reading events a minute old already: no waiting in real time for them to settle. */
async function startDelivery(account: string, endpoint: WebhookDoc, taskQueue: string) {
  await rewindCursor(store, endpoint);
  return env.client.workflow.start('WebhookDelivery', {
    taskQueue,
    workflowId: workflowIds.webhookDelivery(account, endpoint.id),
    // One read per pass (then a 1 s timer): the test server skips time only while no activity runs.
    args: [{ account, endpointId: endpoint.id, passMs: 0 } satisfies WebhookDeliveryInput],
  });
}

const discarded = async () => (await metrics.webhookEventsDiscarded.get()).values.reduce((sum, v) => sum + v.value, 0);

it('retries a refused POST exactly once, 60 s later in workflow time, then discards its events and logs it', () => withReceiver(async (receiver, account) => {
  const endpoint = await createEndpoint(store, account, { url: receiver.url }, true);
  const trackIds = await storeSyntheticEvents(store, account, 3, ['track.mail.opened', 'track.mail.clicked'], 20_000);
  const serverTimes: number[] = [];
  receiver.answer = async () => {
    serverTimes.push(await env.currentTimeMs());
    return 500;
  };
  const discardedBefore = await discarded();

  const taskQueue = `webhook-${newId().slice(0, 8)}`;
  const worker = await webhookWorker(taskQueue);
  const log = () => store.webhookLog.find({ account, endpointId: endpoint.id }).sort({ _id: 1 }).toArray();
  await worker.runUntil(async () => {
    const handle = await startDelivery(account, endpoint, taskQueue);
    try {
      await skipUntil(handle, async () => (await log()).some((entry) => entry.outcome === 'discarded'), 300_000);
      // A third attempt would come a minute after the second, as the second came after the first: 65 s more, and none comes.
      await skipUntil(handle, () => false, 65_000);
    } finally {
      await handle.terminate('test over');
    }
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
  // Kept for GET …/discarded and a replay.
  expect((await store.webhookDiscards.find({ account, endpointId: endpoint.id }).toArray()).map((d) => d.trackId).sort()).toEqual([...trackIds].sort());
}), 240_000);

it('goes on with newer events while a refused POST waits, retries it exactly once a minute later, and logs the delivery', () => withReceiver(async (own, account) => {
  const endpoint = await createEndpoint(store, account, { url: own.url }, true);
  const refused = await storeSyntheticEvents(store, account, 4, ['track.mail.opened'], 20_000);
  const serverTime = new Map<object, number>();
  own.answer = async (request) => {
    serverTime.set(request, await env.currentTimeMs());
    return request.headers['herald-attempt'] === '1' && own.requests.length === 1 ? 503 : 200;
  };
  const attempt = (n: number) => own.requests.filter((r) => r.headers['herald-attempt'] === String(n));
  const log = () => store.webhookLog.find({ account, endpointId: endpoint.id }).sort({ _id: 1 }).toArray();

  const taskQueue = `webhook-${newId().slice(0, 8)}`;
  const worker = await webhookWorker(taskQueue);
  let newer: string[] = [];
  await worker.runUntil(async () => {
    const handle = await startDelivery(account, endpoint, taskQueue);
    try {
      await own.waitFor('the refused POST', () => own.requests.length >= 1 && serverTime.has(own.requests[0]), 30_000);
      // Newer events go out while the refused ones wait (in real time: new events settle for 5 s first).
      newer = await storeSyntheticEvents(store, account, 2, ['track.mail.clicked']);
      await own.waitFor('newer events', () => own.events().some((e) => newer.includes(e.track_id)), 30_000);
      await skipUntil(handle, () => attempt(2).length > 0, 300_000);
      for (let i = 0; i < 50 && !(await log()).some((entry) => entry.outcome === 'delivered' && entry.attempt === 2); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await handle.terminate('test over');
    }
  });

  const [failed] = own.requests;
  expect(failed.headers['herald-attempt']).toBe('1');
  expect(failed.events.map((e) => e.track_id)).toEqual(refused);
  const newerRequest = own.requests.find((r) => r.events.some((e) => newer.includes(e.track_id)))!;
  expect(newerRequest.headers['herald-attempt']).toBe('1');
  expect(serverTime.get(newerRequest)! - serverTime.get(failed)!).toBeLessThan(55_000);
  const retries = attempt(2);
  expect(retries).toHaveLength(1);
  expect(retries[0].events.map((e) => e.track_id)).toEqual(refused);
  expect(serverTime.get(retries[0])! - serverTime.get(failed)!).toBeGreaterThanOrEqual(59_000);
  for (const request of own.requests) expect(verifySignature(endpoint.secret, request.rawBody, request.headers['herald-signature'] as string)).toBe(true);

  // GET …/deliveries shows each entry as deliveryView renders it; the newer events' request is logged too.
  const all = (await log()).map(deliveryView);
  expect(all.filter((e) => e.track_ids.some((t) => newer.includes(t)))).toEqual([
    expect.objectContaining({ outcome: 'delivered', attempt: 1, status: 200, events: 2, track_ids: newer }),
  ]);
  const entries = all.filter((e) => e.track_ids.some((t) => refused.includes(t)));
  expect(entries).toEqual([
    expect.objectContaining({ outcome: 'failed', attempt: 1, status: 503, error: expect.stringContaining('HTTP 503'), events: 4, track_ids: refused }),
    expect.objectContaining({ outcome: 'delivered', attempt: 2, status: 200, events: 4, track_ids: refused }),
  ]);
  expect(Date.parse(entries[0].retry_at!) - Date.parse(entries[0].time)).toBeGreaterThanOrEqual(59_000);
  expect(await store.webhookLog.countDocuments({ account, endpointId: endpoint.id, trackIds: refused[2] })).toBe(2); // what ?q=<track_id> finds
  expect(await store.webhookRetries.countDocuments({ account, endpointId: endpoint.id })).toBe(0);
}), 240_000);
