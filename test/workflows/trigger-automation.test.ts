// Automation runs on the time-skipping test server: the real TriggerAutomation and AutomationRun
// workflows and their real activities (the suite's store, an SMTP sink). A two-step automation
// (email, wait two days, email) sends the first mail at once and the second only after the wait,
// without waiting two days; a deactivation while it waits (the run's workflow cancelled, or only
// the activation changed in the store) sends nothing more; a relay that keeps deferring ends the
// run failed with a soft bounce (after the deferral policy's sends); a replayed event and
// activities run twice send nothing twice.
import { MockActivityEnvironment, TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { createActivities } from '../../activities';
import { createAutomationActivities } from '../../activities/automations';
import { stopAutomationRuns } from '../../core/automations/lifecycle';
import { automationMailId, automationRunDocId } from '../../core/automations/model';
import { DEFERRAL } from '../../core/sending/deferral';
import { newId } from '../../core/shared/ids';
import { connectStore, type AutomationDoc, type AutomationStep, type Store } from '../../adapters/store/store';
import { startTriggerAutomation } from '../../adapters/temporal/client';
import { createRelayTransport } from '../../adapters/relay/transport';
import { searchAttributeKeys, workflowIds } from '../../adapters/temporal/contracts';
import { temporalTestServerPath } from '../../infra/python-tools';
import { installTestTemporalRuntime, testTemporalLogger } from '../support/temporal-logs';
import { releaseWorkflowHooks, testWorkerOptions } from '../support/workflow-bundle';
import { startSmtpSink } from '../support/smtp-sink';
import { waitUntil } from '../support/wait';
import { cancellationTaken } from '../support/time-skipping';
import { ledgerRowOf } from '../support/ledger';

/** temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, without a dependency on @temporalio/proto. */
const INDEXED_VALUE_TYPE_KEYWORD = 2;
const DAY = 86_400_000;
const account = 'acme';

let env: TestWorkflowEnvironment;
let store: Store;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let relay: ReturnType<typeof createRelayTransport>;
let taskQueue: string;
const deferred: string[] = [];
let serverPath: string;

afterAll(releaseWorkflowHooks); // what its workers in debugMode left for the whole process
beforeAll(async () => {
  installTestTemporalRuntime();
  [serverPath, store, sink] = await Promise.all([
    temporalTestServerPath(),
    connectStore(process.env.MONGODB_URI!.replace(/^(mongodb:\/\/[^/?]+)\/[^?]*/, '$1/'), `herald_test_${newId().slice(0, 10)}`),
    startSmtpSink({ deferRecipients: deferred }),
  ]);
  relay = createRelayTransport(sink.url);
}, 120_000);
afterAll(async () => {
  relay?.close();
  await store?.db.dropDatabase().catch(() => undefined);
  await store?.close();
  await sink?.close();
});

// A test server per test (it starts in a fraction of a second): once an abandoned child workflow
// (a run) of a closed parent (its TriggerAutomation) completes, that server keeps time skipping
// locked, so a second run's timers in the same server would take real time.
beforeEach(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: serverPath } } });
  // Runs are searchable by account, automation and contact: the attributes must exist on this server too.
  const { account: a, automation, contact } = searchAttributeKeys;
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries([a, automation, contact].map((key) => [key.name, INDEXED_VALUE_TYPE_KEYWORD])),
  });
  taskQueue = `automations-${newId().slice(0, 8)}`;
}, 30_000);
afterEach(() => env?.teardown());

const transport = { sendMail: (message: Parameters<typeof relay.sendMail>[0]) => relay.sendMail(message), close: () => undefined };
const activityDeps = () => ({ store, mtaHost: 'herald.test', publicUrl: 'http://herald.test', transport });

/** A worker with the real activities (a worker runs once: each test makes its own). */
function newWorker(): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection, taskQueue, ...testWorkerOptions(), activities: createActivities(activityDeps()),
  });
}

let automationIds = 0;
const email = (subject: string): AutomationStep => ({ type: 'email', subject, from: 'shop@example.com', fromName: 'Shop', html: `<p>${subject} \${order.total}</p>` });
const wait = (days: number): AutomationStep => ({ type: 'wait', duration: `P${days}D`, seconds: days * 86_400 });

/** An enabled automation of trigger key `key`, written straight to the store. */
async function addAutomation(key: string, steps: AutomationStep[]): Promise<AutomationDoc> {
  const id = (automationIds += 1);
  const now = new Date();
  const doc: AutomationDoc = {
    _id: `${account}:${id}`, account, id, name: `Automation ${id}`, comments: '', tags: ['flow'], trigger: { type: 'custom', key }, steps,
    enabled: true, activation: 1, created: now, lastModified: now, activated: now, deactivated: null, stats: { triggered: 0, completed: 0, exited: 0, failed: 0 },
  };
  await store.automations.insertOne(doc);
  return doc;
}

/** An accepted event (as the intake stores it), its workflow started; the run's handle. */
async function trigger(automation: AutomationDoc, to: string) {
  const eventId = newId();
  await store.triggerEvents.insertOne({
    _id: `${account}:${eventId}`, account, eventId, key: automation.trigger.key, email: to, context: JSON.stringify({ order: { total: 42 } }), receivedAt: new Date(),
  });
  await startTriggerAutomation(env.client, taskQueue, { account, eventId, email: to });
  const run = { account, eventId, automationId: automation.id };
  return {
    eventId, run,
    started: env.client.workflow.getHandle(workflowIds.triggerEvent(account, eventId)),
    handle: env.client.workflow.getHandle(workflowIds.automationRun(account, eventId, automation.id)),
  };
}

const mailsTo = (to: string) => sink.received.filter((mail) => mail.rcptTo[0] === to);
const statsOf = async (automation: AutomationDoc) => (await store.automations.findOne({ _id: automation._id, account }))!.stats;
const runOf = (run: { eventId: string; automationId: number }) => store.automationRuns.findOne({ _id: automationRunDocId(account, run.automationId, run.eventId), account });

it('sends the first email at once and the second only after the two-day wait, then the run is completed; a replay sends nothing twice', async () => {
  const automation = await addAutomation('order_paid', [email('Thanks'), wait(2), email('How was it?')]);
  // Read before the run starts: its timer starts later, once the first email is sent (a reading
  // taken when the test sees that email may already be past the timer's start).
  const waitedFrom = await env.currentTimeMs();
  const { eventId, run, handle } = await trigger(automation, 'ann@example.net');
  await (await newWorker()).runUntil(async () => {
    // The run waits in its timer: time does not skip while nothing awaits its result.
    await waitUntil('the first email', async () => mailsTo('ann@example.net').length === 1);
    expect(mailsTo('ann@example.net')[0].parsed.subject).toBe('Thanks');
    expect(mailsTo('ann@example.net')[0].parsed.html).toContain('Thanks 42');
    expect(await handle.result()).toBe('completed'); // now the test server skips ahead to the timer
  });
  expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(waitedFrom + 2 * DAY);
  expect(mailsTo('ann@example.net').map((mail) => mail.parsed.subject)).toEqual(['Thanks', 'How was it?']);
  expect(await runOf(run)).toMatchObject({ state: 'completed', activation: 1, ended: expect.any(Date) });
  expect(await statsOf(automation)).toEqual({ triggered: 1, completed: 1, exited: 0, failed: 0 });
  expect(await store.contacts.findOne({ account, email: 'ann@example.net' })).toMatchObject({ state: 'ACTIVE', source: 'CUSTOM_TRIGGER' });
  const sent = await store.events.find({ account, email: 'ann@example.net', track_type: 'track.mail.sent' }).toArray();
  expect(sent).toHaveLength(2);
  expect(sent[0]).toMatchObject({ mail_type: 'automation', batch_id: `${account}_automation_${automation.id}`, tags: ['flow'] });

  // The same event again: its workflow ran already, so nothing starts; its activities run again send and count nothing.
  await startTriggerAutomation(env.client, taskQueue, { account, eventId, email: 'ann@example.net' });
  const activities = createAutomationActivities(activityDeps());
  const mock = new MockActivityEnvironment({}, { logger: testTemporalLogger });
  expect(await mock.run(activities.matchTriggerEvent, { account, eventId })).toEqual({ email: 'ann@example.net', automationIds: [automation.id] });
  expect(await mock.run(activities.sendAutomationEmail, { ...run, step: 0 })).toBe('sent');
  expect(await mock.run(activities.sendAutomationEmail, { ...run, step: 2 })).toBe('sent');
  await mock.run(activities.recordAutomationEmailFailed, { ...run, step: 2, reason: 'late' }); // the ledger has its outcome: kept
  await mock.run(activities.finishAutomationRun, { ...run, state: 'exited' as const });
  expect(mailsTo('ann@example.net')).toHaveLength(2);
  expect((await env.client.workflow.getHandle(workflowIds.triggerEvent(account, eventId)).describe()).status.name).toBe('COMPLETED');
  expect(await statsOf(automation)).toEqual({ triggered: 1, completed: 1, exited: 0, failed: 0 });
  expect((await runOf(run))!.state).toBe('completed');
  expect((await ledgerRowOf(store, { _id: automationMailId(account, automation.id, eventId, 2), account }))!.status).toBe('sent');
}, 60_000);

/** Starts a run of a fresh email → wait → email automation for `to`, and waits for its first email. */
async function runWaitingAfterFirstEmail(to: string, change: (automation: AutomationDoc, handle: WorkflowHandle) => Promise<void>) {
  const automation = await addAutomation(`flow_${automationIds + 1}`, [email('First'), wait(3), email('Second')]);
  const { run, handle } = await trigger(automation, to);
  let outcome: unknown;
  await (await newWorker()).runUntil(async () => {
    await waitUntil('the first email', async () => mailsTo(to).length === 1);
    await change(automation, handle);
    outcome = await handle.result();
  });
  return { automation, run, outcome };
}

it('deactivated and activated again while it waits, with no cancel: the next email step sees the new activation and exits', async () => {
  const { automation, run, outcome } = await runWaitingAfterFirstEmail('cy@example.net', async (doc) => {
    await store.automations.updateOne({ _id: doc._id, account }, { $set: { enabled: true }, $inc: { activation: 1 } });
  });
  expect(outcome).toBe('exited');
  expect(mailsTo('cy@example.net').map((mail) => mail.parsed.subject)).toEqual(['First']);
  expect((await runOf(run))!.state).toBe('exited');
  expect(await statsOf(automation)).toEqual({ triggered: 1, completed: 0, exited: 1, failed: 0 });
}, 60_000);

it('deactivated while it waits (its workflow cancelled): exited at once, the second email never sent', async () => {
  const { automation, run, outcome } = await runWaitingAfterFirstEmail('bob@example.net', async (doc, handle) => {
    await store.automations.updateOne({ _id: doc._id, account }, { $set: { enabled: false, deactivated: new Date() } });
    expect(await stopAutomationRuns({ store, temporal: env.client }, account, doc.id)).toBe(1);
    await cancellationTaken(handle); // before the result lets time skip: the test server's cancel race
  });
  expect(outcome).toBe('exited');
  expect(mailsTo('bob@example.net').map((mail) => mail.parsed.subject)).toEqual(['First']);
  expect(await runOf(run)).toMatchObject({ state: 'exited', reason: 'the automation was deactivated' });
  expect(await statsOf(automation)).toEqual({ triggered: 1, completed: 0, exited: 1, failed: 0 });
}, 60_000);

it('a relay that keeps deferring the email: retried, then a soft bounce, the run failed and its later steps not taken', async () => {
  deferred.push('dee@example.net');
  const automation = await addAutomation('deferred_flow', [email('Never'), wait(1), email('Nor this')]);
  const { run, started, handle } = await trigger(automation, 'dee@example.net');
  await (await newWorker()).runUntil(async () => {
    expect(await started.result()).toEqual({ started: [automation.id] });
    expect(await handle.result()).toBe('failed');
  });
  expect(sink.deferred.filter((to) => to === 'dee@example.net')).toHaveLength(DEFERRAL.sends); // the step's sends, as the deferral policy allows
  expect(mailsTo('dee@example.net')).toHaveLength(0);
  expect((await runOf(run))!.state).toBe('failed');
  const bounce = await store.events.findOne({ account, email: 'dee@example.net' });
  expect(bounce).toMatchObject({ track_type: 'track.mail.bounced', bounce_type: 'soft', mail_type: 'automation', mail_id: automationMailId(account, automation.id, run.eventId, 0) });
  expect(await statsOf(automation)).toEqual({ triggered: 1, completed: 0, exited: 0, failed: 1 });
}, 60_000);
