// Campaign sending on the real stack (Temporal, the store, the SMTP sink): who gets the campaign
// (lists ∪ interests ∪ other campaigns' recipients, minus excludes, unsubscribed and suppressed
// contacts, each once), the ledger and events of every message, the states to SENT with the task
// FINISHED, an empty audience, and a launch whose workflow cannot start (the campaign stays a
// DRAFT). Campaigns are set up in the store and launched over HTTP
// (POST …/launch, validated); pages are small here (7 recipients) so a launch spans pages and runs.
import { Client, Connection } from '@temporalio/client';
import { campaignRecipientEmails, countAudience } from '../../core/campaigns/audience';
import { launchCampaign } from '../../core/campaigns/lifecycle';
import { freePort } from '../../infra/ports';
import { campaignBatchId, campaignMailId, campaignRequestId } from '../../core/campaigns/model';
import { buildEvent } from '../../core/tracking/events';
import type { NewAccount } from '../../core/accounts/accounts';
import type { CampaignDoc, Store } from '../../adapters/store/store';
import { suppress } from '../../core/sending/suppressions';
import { messageIdOf } from '../../core/sending/plan';
import {
  addContacts, addInterests, addLists, campaignApi, campaignNow, draftCampaign, OWNER, taskDepsOf, waitForCampaign, waitForTask,
} from '../support/campaigns';
import * as states from '../../core/campaigns/state-machine';
import { recordTask } from '../../core/tasks/tasks';
import { startUnstartedTasks, UNSTARTED_AFTER_MS } from '../../core/tasks/unstarted';
import { triggerSweeper } from '../../adapters/temporal/schedules';
import { workflowIds } from '../../adapters/temporal/contracts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { ledgerCount, ledgerRowOf, ledgerRows } from '../support/ledger';

let herald: TestHerald;
let store: Store;
let api: ReturnType<typeof campaignApi>;
let acme: NewAccount;
let account: string;

beforeAll(async () => {
  herald = await startTestHerald({ campaignTuning: { pageSize: 7, pagesPerRun: 2 } });
  store = herald.services.store;
  acme = await herald.newAccount();
  account = acme.account;
  api = campaignApi(herald.baseUrl, account, acme.apiKey);
  await addLists(store, account, [1, 2, 3, 4]);
  await addInterests(store, account, [1]);
  await addInterests(store, account, [2], 1); // lasts one day on a contact
  const old = new Date(Date.now() - 3 * 86_400_000);
  await addContacts(store, account, [
    ...Array.from({ length: 10 }, (_, i) => ({ email: `a${i}@example.net`, firstName: `A${i}`, lists: [1] })),
    ...Array.from({ length: 5 }, (_, i) => ({ email: `b${i}@example.net`, lists: [1, 2] })), // in two included lists: one message
    ...Array.from({ length: 3 }, (_, i) => ({ email: `c${i}@example.net`, interests: [{ id: 1, subscribed: new Date() }] })),
    { email: 'expired@example.net', interests: [{ id: 2, subscribed: old }] }, // the interest lapsed
    { email: 'excluded@example.net', lists: [1, 3] },
    { email: 'unsubscribed@example.net', lists: [1], state: 'UNSUBSCRIBED' },
    { email: 'bounced@example.net', lists: [2], state: 'BOUNCED' },
    { email: 'suppressed@example.net', lists: [1] },
    { email: 'elsewhere@example.net', lists: [4] },
  ]);
  await suppress(store, account, 'suppressed@example.net', 'complained');
}, 60000);
afterAll(() => herald?.stop());

const launch = (campaign: CampaignDoc, launchDate: Date | null = null) => api.launch(campaign, launchDate);
const expectedFirst = [...Array.from({ length: 10 }, (_, i) => `a${i}@example.net`), ...Array.from({ length: 5 }, (_, i) => `b${i}@example.net`), 'c0@example.net', 'c1@example.net', 'c2@example.net'];
const receivedBy = (emails: string[]) => herald.sink.received.filter((mail) => emails.includes(mail.rcptTo[0]));

let first: CampaignDoc;

it('sends once to each contact of the included lists and interests, minus excludes, unsubscribed and suppressed, and ends SENT with its task FINISHED', async () => {
  const draft = await draftCampaign(store, account, { name: 'Spring', include: { lists: [1, 2], interests: [1, 2] }, exclude: { lists: [3] } });
  expect(await countAudience(store, draft)).toBe(expectedFirst.length);

  const task = await launch(draft);
  expect(task).toMatchObject({
    type: 'CAMPAIGN_LAUNCH', name: 'Launch of campaign Spring', state: 'QUEUED', cancellable: true, completed: 0, eta: -1, init: null, end: null, result: null,
    request: `/${account}/campaigns/${draft.id}/launch`, parameters: { campaignId: draft.id, launchDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
  });
  const scheduled = await campaignNow(store, draft);
  expect(scheduled.state).toMatch(/SCHEDULED|SENDING|SENT/);
  expect(scheduled.launch).toMatchObject({ taskId: task.id, workflowId: `campaign-${account}-${draft.id}-${task.id}`, paused: false });
  // Searchable in the Temporal UI by account and campaign.
  const description = await herald.services.temporal.workflow.getHandle(scheduled.launch!.workflowId).describe();
  expect(description.type).toBe('CampaignLaunch');
  expect(description.searchAttributes).toMatchObject({ HeraldAccount: [account], HeraldCampaign: [String(draft.id)] });

  first = await waitForCampaign(store, draft, ['SENT']);
  expect(first.recipients).toBe(expectedFirst.length);
  expect(first.launch!.snapshotTotal).toBe(expectedFirst.length);
  const finished = await waitForTask(store, account, task.id, ['FINISHED']);
  expect(finished).toMatchObject({ completed: 1, eta: 0, result: { recipients: 18, sent: 18, failed: 0, dropped: 0 } });

  // Each recipient got exactly one message, whose Message-ID is its ledger row's.
  await herald.sink.waitFor(expectedFirst.length);
  const mails = herald.sink.received.filter((mail) => mail.parsed.subject?.startsWith('Spring'));
  expect(mails.map((mail) => mail.rcptTo[0]).sort()).toEqual([...expectedFirst].sort());
  const rows = await ledgerRows(store, { account, requestId: campaignRequestId(draft.id) });
  expect(rows).toHaveLength(expectedFirst.length);
  const snapshot = (await store.campaignSnapshots.find({ account, campaignId: draft.id }).toArray()).flatMap((part) => part.recipients);
  for (const row of rows) {
    const recipient = snapshot.find((r) => r.email === row.email)!;
    expect(row._id).toBe(campaignMailId(account, draft.id, recipient.seq));
    expect(row.status).toBe('sent');
    const mail = mails.find((m) => m.rcptTo[0] === row.email)!;
    expect(mail.parsed.messageId).toBe(row.messageId);
    expect(row.messageId).toBe(messageIdOf(row._id, 'herald.test'));
  }
  expect(mails.find((m) => m.rcptTo[0] === 'a3@example.net')!.parsed.subject).toBe('Spring for A3');
  // Events of the campaign's messages: mail_type campaign, its batch id.
  const events = await store.events.find({ account, batch_id: campaignBatchId(account, draft.id) }).toArray();
  expect(events.filter((e) => e.track_type === 'track.mail.sent')).toHaveLength(expectedFirst.length);
  expect(events.every((e) => e.mail_type === 'campaign')).toBe(true);
  // The included lists were mailed.
  expect((await store.lists.findOne({ account, id: 1 }))!.lastMailed).toBeInstanceOf(Date);
}, 90000);

it('includes and excludes another campaign\'s recipients by action', async () => {
  // Someone opened the first campaign.
  const opened = (await ledgerRowOf(store, { account, email: 'a1@example.net', requestId: campaignRequestId(first.id) }))!;
  await store.events.insertOne(buildEvent('track.mail.first_opened', { ...opened.event, sent_timestamp: new Date(opened.event.sent_timestamp) }, new Date(), 'first'));
  expect([...await campaignRecipientEmails(store, account, first.id, 'OPENED')]).toEqual(['a1@example.net']);
  expect((await campaignRecipientEmails(store, account, first.id, 'NO_OPEN')).size).toBe(17);
  expect((await campaignRecipientEmails(store, account, first.id, 'CLICKED')).size).toBe(0);
  expect((await campaignRecipientEmails(store, account, first.id, 'NO_CLICK')).size).toBe(18);

  const openers = await draftCampaign(store, account, { name: 'Openers', include: { campaigns: [{ id: first.id, action: 'OPENED' }] } });
  expect(await countAudience(store, openers)).toBe(1);
  const others = await draftCampaign(store, account, { name: 'NonOpeners', include: { campaigns: [{ id: first.id, action: 'NO_OPEN' }] }, exclude: { lists: [2] } });
  expect(await countAudience(store, others)).toBe(12); // 17 minus b0..b4

  // The first campaign's recipients, minus list 2's, get the follow-up; list 1 minus them is one contact.
  const followUp = await draftCampaign(store, account, { name: 'FollowUp', include: { campaigns: [first.id] }, exclude: { lists: [2] } });
  const rest = await draftCampaign(store, account, { name: 'Rest', include: { lists: [1] }, exclude: { campaigns: [{ id: first.id, action: 'SENT' }] } });
  const [followUpTask, restTask] = [await launch(followUp), await launch(rest)];
  expect((await waitForCampaign(store, followUp, ['SENT'])).recipients).toBe(13);
  expect((await waitForCampaign(store, rest, ['SENT'])).recipients).toBe(1);
  await waitForTask(store, account, followUpTask.id, ['FINISHED']);
  await waitForTask(store, account, restTask.id, ['FINISHED']);
  const followUpRows = await ledgerRows(store, { account, requestId: campaignRequestId(followUp.id) });
  expect(followUpRows.map((r) => r.email).sort()).toEqual([...Array.from({ length: 10 }, (_, i) => `a${i}@example.net`), 'c0@example.net', 'c1@example.net', 'c2@example.net'].sort());
  const restRows = await ledgerRows(store, { account, requestId: campaignRequestId(rest.id) });
  expect(restRows.map((r) => r.email)).toEqual(['excluded@example.net']);
  expect(receivedBy(['excluded@example.net'])).toHaveLength(1);
}, 90000);

it('sends an audience that is empty at send time to no one: SENT with 0 recipients', async () => {
  const nobody = await draftCampaign(store, account, { name: 'Nobody', include: { lists: [4] } });
  const task = await launch(nobody, new Date(Date.now() + 1500)); // validated with one recipient…
  await store.contacts.updateOne({ account, email: 'elsewhere@example.net' }, { $set: { state: 'UNSUBSCRIBED' } }); // …who leaves before the date
  const sent = await waitForCampaign(store, nobody, ['SENT']);
  expect(sent.recipients).toBe(0);
  expect((await waitForTask(store, account, task.id, ['FINISHED'])).result).toEqual({ recipients: 0, sent: 0, failed: 0, dropped: 0 });
  expect(await ledgerCount(store, { account, requestId: campaignRequestId(nobody.id) })).toBe(0);
}, 60000);

it('leaves the campaign a DRAFT, and no task, when its workflow cannot start (Temporal down)', async () => {
  const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: '1 second' });
  try {
    const draft = await draftCampaign(store, account, { name: 'Unstarted', include: { lists: [1] } });
    const tasksBefore = await store.tasks.countDocuments({ account });
    const deps = { store, temporal: new Client({ connection }), taskQueue: store.db.databaseName };
    await expect(launchCampaign(deps, draft, { owner: OWNER, request: `/campaigns/${draft.id}/launch`, launchDate: null })).rejects.toThrow();
    expect(await campaignNow(store, draft)).toMatchObject({ state: 'DRAFT', launchDate: null });
    expect((await campaignNow(store, draft)).launch).toBeUndefined();
    expect(await store.tasks.countDocuments({ account })).toBe(tasksBefore);
  } finally {
    await connection.close().catch(() => undefined);
  }
}, 30000);

describe('a launch whose process was killed before its workflow started', () => {
  /** A task sweep (core/tasks/unstarted.ts) as it runs a minute and more from now. */
  const sweep = () => startUnstartedTasks(
    { ...taskDepsOf(store, herald.services.temporal), heartbeat: () => undefined }, new Date(Date.now() + UNSTARTED_AFTER_MS + 1000),
  );
  const recordLaunch = (draft: CampaignDoc) => recordTask(store, {
    account, type: 'CAMPAIGN_LAUNCH', name: `Launch of campaign ${draft.name}`, owner: OWNER, request: `/campaigns/${draft.id}/launch`,
    parameters: { campaignId: draft.id, launchDate: new Date().toISOString() }, campaignId: draft.id,
  });
  const runIdOf = async (workflowId: string) => (await herald.services.temporal.workflow.getHandle(workflowId).describe()).runId;

  it('is sent once the task sweeper starts its recorded task, and a later sweep starts nothing again', async () => {
    const draft = await draftCampaign(store, account, { name: 'Interrupted', include: { lists: [1] } });
    // launchCampaign's first two steps, as a kill before the third (the start) leaves them.
    const task = await recordLaunch(draft);
    expect(await states.schedule(store, draft, new Date(), { taskId: task.id, workflowId: task.workflowId })).toMatchObject({ state: 'SCHEDULED' });
    expect((await api.call('POST', `/campaigns/${draft.id}/launch`, '')).status).toBe(400); // a retried launch finds it launched

    expect(await sweep()).toEqual({ started: 1, failures: 0 });
    const { recipients } = await waitForCampaign(store, draft, ['SENT']);
    expect(recipients).toBeGreaterThan(10); // list 1 as the earlier tests left it
    expect((await waitForTask(store, account, task.id, ['FINISHED'])).result).toMatchObject({ sent: recipients });
    expect(await ledgerCount(store, { account, requestId: campaignRequestId(draft.id) })).toBe(recipients);

    // Even a task that looks unstarted again is not run twice: its workflow ran to its end.
    const runId = await runIdOf(task.workflowId);
    await store.tasks.updateOne({ _id: task._id, account }, { $set: { state: 'QUEUED' } });
    await sweep();
    expect(await runIdOf(task.workflowId)).toBe(runId);
    expect(await ledgerCount(store, { account, requestId: campaignRequestId(draft.id) })).toBe(recipients);
  }, 60000);

  it('ends a task recorded for a launch that never scheduled its campaign, which stays a draft', async () => {
    const draft = await draftCampaign(store, account, { name: 'Never scheduled', include: { lists: [1] } });
    const task = await recordLaunch(draft);
    // Through the worker's own schedule this time (TaskSweep), the task recorded two minutes ago.
    await store.tasks.updateOne({ _id: task._id, account }, { $set: { created: new Date(Date.now() - 2 * UNSTARTED_AFTER_MS) } });
    await triggerSweeper(herald.services.temporal, workflowIds.taskSweeper(herald.services.taskQueue));
    expect((await waitForTask(store, account, task.id, ['FAILED', 'CANCELLED'])).state).toBeDefined();
    expect(await campaignNow(store, draft)).toMatchObject({ state: 'DRAFT' });
    expect(await ledgerCount(store, { account, requestId: campaignRequestId(draft.id) })).toBe(0);
  }, 60000);
});

it('refuses a second launch of a campaign that is no longer a draft', async () => {
  const answer = await api.call('POST', `/campaigns/${first.id}/launch`, '');
  expect(answer.status).toBe(400);
  expect(JSON.stringify(answer.body)).toMatch(/SENT/);
});
