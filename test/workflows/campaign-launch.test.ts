// A scheduled campaign launch on the time-skipping test server: the real CampaignLaunch workflow
// and its real activities (the suite's store, an SMTP sink). The campaign stays SCHEDULED, and
// nothing is sent, until its launchDate three days ahead; then it is sent and SENT, without
// waiting three days. Cancelled while it waits, it ends CANCELLED and sends nothing. A snapshot
// that cannot be taken fails the launch at once, though its first page waits for a part.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { cancelCampaign, launchCampaign } from '../../core/campaigns/lifecycle';
import { newId } from '../../core/shared/ids';
import { connectStore, type CampaignDoc, type Store } from '../../adapters/store/store';
import type { TaskDeps } from '../../core/tasks/tasks';
import { createRelayTransport } from '../../adapters/relay/transport';
import { searchAttributeKeys } from '../../adapters/temporal/contracts';
import { temporalTestServerPath } from '../../infra/python-tools';
import { installTestTemporalRuntime } from '../support/temporal-logs';
import { releaseWorkflowHooks, testWorkerOptions } from '../support/workflow-bundle';
import { addContacts, addLists, campaignNow, draftCampaign, OWNER, waitForTask } from '../support/campaigns';
import { startSmtpSink } from '../support/smtp-sink';
import { cancellationTaken } from '../support/time-skipping';
import { waitUntil } from '../support/wait';

/** temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, without a dependency on @temporalio/proto. */
const INDEXED_VALUE_TYPE_KEYWORD = 2;
const DAY = 86_400_000;
const account = 'acme';

let env: TestWorkflowEnvironment;
let store: Store;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let deps: TaskDeps;
let relay: ReturnType<typeof createRelayTransport>;

afterAll(releaseWorkflowHooks); // what its workers in debugMode left for the whole process
beforeAll(async () => {
  installTestTemporalRuntime();
  [env, store, sink] = await Promise.all([
    TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: await temporalTestServerPath() } } }),
    connectStore(process.env.MONGODB_URI!.replace(/^(mongodb:\/\/[^/?]+)\/[^?]*/, '$1/'), `herald_test_${newId().slice(0, 10)}`),
    startSmtpSink(),
  ]);
  // Launches are searchable by account and campaign: the attributes must exist on this server too.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: { [searchAttributeKeys.account.name]: INDEXED_VALUE_TYPE_KEYWORD, [searchAttributeKeys.campaign.name]: INDEXED_VALUE_TYPE_KEYWORD },
  });
  const taskQueue = `campaigns-${newId().slice(0, 8)}`;
  relay = createRelayTransport(sink.url);
  deps = { store, temporal: env.client, taskQueue };
  await addLists(store, account, [1]);
  await addContacts(store, account, ['ann@example.net', 'bob@example.net', 'cy@example.net'].map((email) => ({ email, lists: [1] })));
}, 120_000);
afterAll(async () => {
  relay?.close();
  await store?.db.dropDatabase().catch(() => undefined);
  await store?.close();
  await sink?.close();
  await env?.teardown();
});

/** A worker with the real activities but those `replaced` (a worker runs once: each test makes its own). */
function newWorker(replaced: Partial<ReturnType<typeof createActivities>> = {}): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue: deps.taskQueue,
    ...testWorkerOptions(),
    activities: {
      ...createActivities({
        store, mtaHost: 'herald.test', publicUrl: 'http://herald.test',
        transport: { sendMail: (message) => relay.sendMail(message), close: () => undefined },
      }),
      ...replaced,
    },
  });
}

const launchIn = async (campaign: CampaignDoc, ms: number) => {
  const launchDate = new Date((await env.currentTimeMs()) + ms);
  const task = await launchCampaign(deps, campaign, { owner: OWNER, request: `/campaigns/${campaign.id}/launch`, launchDate });
  return { task, launchDate, handle: env.client.workflow.getHandle(task.workflowId) };
};

it('stays SCHEDULED until its launchDate three days ahead, then is sent and SENT', async () => {
  const campaign = await draftCampaign(store, account, { name: 'Later', include: { lists: [1] } });
  const { task, launchDate, handle } = await launchIn(campaign, 3 * DAY);
  await (await newWorker()).runUntil(async () => {
    // The workflow waits in its timer: time does not skip while nothing awaits its result.
    await waitUntil('the launch to wait for its date', async () => (await store.tasks.findOne({ account, id: task.id }))?.message.startsWith('Scheduled for'));
    expect(await campaignNow(store, campaign)).toMatchObject({ state: 'SCHEDULED', launchDate });
    expect(sink.received).toHaveLength(0);
    await handle.result(); // now the test server skips ahead to the timer
  });
  expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(launchDate.getTime());
  expect(await campaignNow(store, campaign)).toMatchObject({ state: 'SENT', recipients: 3 });
  expect((await waitForTask(store, account, task.id, ['FINISHED'])).result).toEqual({ recipients: 3, sent: 3, failed: 0, dropped: 0 });
  expect(sink.received.map((mail) => mail.rcptTo[0]).sort()).toEqual(['ann@example.net', 'bob@example.net', 'cy@example.net']);
}, 60_000);

it('cancelled while it waits for its launchDate: CANCELLED, its task CANCELLED, nothing sent', async () => {
  const before = sink.received.length;
  const campaign = await draftCampaign(store, account, { name: 'Never', include: { lists: [1] } });
  const { task, handle } = await launchIn(campaign, 7 * DAY);
  await (await newWorker()).runUntil(async () => {
    await waitUntil('the launch to wait for its date', async () => (await store.tasks.findOne({ account, id: task.id }))?.message.startsWith('Scheduled for'));
    await cancelCampaign(deps, await campaignNow(store, campaign));
    await cancellationTaken(handle); // before the result lets time skip: the test server's cancel race
    await handle.result().catch(() => undefined); // ends cancelled
  });
  expect((await handle.describe()).status.name).toBe('CANCELLED');
  expect((await campaignNow(store, campaign)).state).toBe('CANCELLED');
  expect((await store.tasks.findOne({ account, id: task.id }))!.state).toBe('CANCELLED');
  expect(sink.received.length).toBe(before);
}, 60_000);

it('fails at once when its snapshot cannot be taken, though a page waits for its part: task FAILED, CANCELLED, nothing sent', async () => {
  const before = sink.received.length;
  const campaign = await draftCampaign(store, account, { name: 'Unreadable', include: { lists: [1] } });
  const { task, handle } = await launchIn(campaign, 0);
  // The snapshot activity fails for good (its retries spent) after the first page started waiting for part 0.
  const takeCampaignSnapshot = async () => {
    await waitUntil('the first page to wait for its part', async () => (await store.tasks.findOne({ account, id: task.id }))?.message.startsWith('Reading the audience'));
    throw ApplicationFailure.nonRetryable('the audience cannot be read');
  };
  // The worker's shutdown waits for the page that waited: it ends once it sees its campaign is no longer sending.
  await (await newWorker({ takeCampaignSnapshot })).runUntil(handle.result());
  expect((await handle.describe()).status.name).toBe('COMPLETED');
  expect((await waitForTask(store, account, task.id, ['FAILED'])).message).toBe('The task stopped on an unexpected error after several attempts; start it again');
  expect((await campaignNow(store, campaign)).state).toBe('CANCELLED');
  expect(sink.received.length).toBe(before);
}, 60_000);
