// A campaign launch under way, changed: paused (no message while paused) and resumed (the rest,
// none twice), cancelled mid-send (nothing more once the cancel settles), cancelled through its
// task, stopped while scheduled (a draft again, nothing sent) and launched again, and sent again
// to the recipients whose message failed; every change over HTTP (POST /campaigns/{id}/launch,
// …/pause, …). The relay (the sink) acknowledges each message after 15 ms so a launch takes a few
// seconds; pages are 7 recipients.
import type { NewAccount } from '../../core/accounts/accounts';
import { campaignMailId, campaignRequestId } from '../../core/campaigns/model';
import { claimResendRound } from '../../core/campaigns/state-machine';
import type { CampaignDoc, Store } from '../../adapters/store/store';
import { messageIdOf } from '../../core/sending/plan';
import {
  addContacts, addLists, campaignApi, campaignNow, draftCampaign, settledCount, waitForCampaign, waitForTask,
} from '../support/campaigns';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import type { SinkOptions } from '../support/smtp-sink';
import { waitUntil } from '../support/wait';
import { workflowIds } from '../../adapters/temporal/contracts';
import { ledgerCount, ledgerRowOf } from '../support/ledger';

/** The relay's behaviour: startTestHerald hands this very object to the sink, so a test may change its lists. */
const relay: SinkOptions & Parameters<typeof startTestHerald>[0] = {
  delayMs: 15, campaignTuning: { pageSize: 7, pagesPerRun: 3, deferredSends: 2, deferredFirstDelayMs: 300 },
};
let herald: TestHerald;
let store: Store;
let api: ReturnType<typeof campaignApi>;
let acme: NewAccount;
let account: string;
let nextList = 1;

beforeAll(async () => {
  herald = await startTestHerald(relay);
  store = herald.services.store;
  acme = await herald.newAccount();
  account = acme.account;
  api = campaignApi(herald.baseUrl, account, acme.apiKey);
}, 60000);
afterAll(() => herald?.stop());

/** A campaign to `count` new contacts of a list of their own. */
async function campaignTo(name: string, count: number): Promise<{ campaign: CampaignDoc; emails: string[] }> {
  const list = nextList++;
  await addLists(store, account, [list]);
  const emails = Array.from({ length: count }, (_, i) => `${name.toLowerCase()}${i}@example.net`);
  await addContacts(store, account, emails.map((email) => ({ email, lists: [list] })));
  return { campaign: await draftCampaign(store, account, { name, include: { lists: [list] } }), emails };
}

const launch = (campaign: CampaignDoc, launchDate: Date | null = null) => api.launch(campaign, launchDate);
/** An action's answer: 200 with the campaign (or the task), else a 400 naming why. */
async function act(campaign: CampaignDoc, action: Parameters<typeof api.action>[1], status = 200) {
  const answer = await api.action(campaign, action);
  expect({ action, status: answer.status }).toEqual({ action, status });
  return answer.body;
}
const received = (emails: string[]) => herald.sink.received.filter((mail) => emails.includes(mail.rcptTo[0])).length;
const roundRows = (campaign: CampaignDoc, round = 0) => ledgerCount(store, { account, requestId: campaignRequestId(campaign.id, round) });

/** Waits for the launch's workflow (every run of it) to close; returns its status. */
async function workflowClosed(campaign: CampaignDoc): Promise<string> {
  const handle = herald.services.temporal.workflow.getHandle((await campaignNow(store, campaign)).launch!.workflowId);
  return waitUntil('the workflow to close', async () => {
    const { status } = await handle.describe();
    return status.name === 'RUNNING' ? undefined : status.name;
  });
}

it('pauses after the page in flight, sends nothing while paused, and resumes with the rest, none twice', async () => {
  const { campaign, emails } = await campaignTo('Pause', 60);
  const task = await launch(campaign);
  await waitUntil('sending to begin', async () => received(emails) >= 10);
  expect((await act(campaign, 'pause')).data).toMatchObject({ state: 'SENDING', paused: true });
  expect((await act(campaign, 'pause')).data).toMatchObject({ paused: true }); // pausing again changes nothing
  expect((await campaignNow(store, campaign)).launch!.paused).toBe(true);

  const atPause = await settledCount(() => received(emails), 1500);
  expect(atPause).toBeLessThan(60);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  expect(received(emails)).toBe(atPause); // nothing while paused
  expect((await campaignNow(store, campaign)).state).toBe('SENDING');
  // The task shows how far the launch got.
  const progress = (await api.call('GET', `/tasks/${task.id}`)).body.data;
  expect(progress).toMatchObject({ state: 'PROCESSING', completed: atPause / 60, message: `Paused after ${atPause} of 60 recipients` });

  expect((await act(campaign, 'resume')).data).toMatchObject({ state: 'SENDING', paused: false });
  const sent = await waitForCampaign(store, campaign, ['SENT']);
  expect(sent).toMatchObject({ recipients: 60, launch: { paused: false } });
  expect((await waitForTask(store, account, task.id, ['FINISHED'])).result).toEqual({ recipients: 60, sent: 60, failed: 0, dropped: 0 });
  await waitUntil('every message', async () => received(emails) >= 60);
  const rcpts = herald.sink.received.filter((mail) => emails.includes(mail.rcptTo[0])).map((mail) => mail.rcptTo[0]);
  expect(rcpts).toHaveLength(60);
  expect(new Set(rcpts).size).toBe(60);
  expect(await roundRows(campaign)).toBe(60);

  // 9 pages, 3 a run: the launch continued as new twice.
  const handle = herald.services.temporal.workflow.getHandle(sent.launch!.workflowId);
  const description = await handle.describe();
  expect(description.runId).not.toBe(description.raw.workflowExecutionInfo?.firstRunId);
  expect((await act(campaign, 'resume', 400)).error.userMessage).toMatch(/state SENT cannot be resumed/);
}, 90000);

it('cancels mid-send: CANCELLED at once, the task CANCELLED, nothing more sent once it settles', async () => {
  const { campaign, emails } = await campaignTo('Cancel', 60);
  const task = await launch(campaign);
  await waitUntil('sending to begin', async () => received(emails) >= 10);
  expect((await act(campaign, 'cancel')).data.state).toBe('CANCELLED');
  expect((await store.tasks.findOne({ account, id: task.id }))!.state).toBe('CANCELLED');
  // The workflow ends either by the cancel request or, when its page sees the campaign cancelled
  // first (it looks every second), by ending its work: which comes first is the machine's timing.
  expect(['CANCELLED', 'COMPLETED']).toContain(await workflowClosed(campaign));

  const atCancel = await settledCount(() => received(emails), 1000);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  expect(received(emails)).toBe(atCancel);
  expect(atCancel).toBeLessThan(60);
  // Every message sent is in the ledger, nothing else is; the campaign stays CANCELLED.
  await waitUntil('the last rows', async () => (await roundRows(campaign)) === atCancel);
  expect((await campaignNow(store, campaign)).state).toBe('CANCELLED');
  expect((await act(campaign, 'cancel', 400)).error.userMessage).toMatch(/state CANCELLED cannot be cancelled/);
}, 90000);

it('cancelling the CAMPAIGN_LAUNCH task (POST /tasks/{id}/cancel) cancels its campaign', async () => {
  const { campaign, emails } = await campaignTo('TaskCancel', 40);
  const task = await launch(campaign);
  await waitUntil('sending to begin', async () => received(emails) >= 5);
  const answer = await callHerald(herald.baseUrl, 'POST', `/v2/${account}/tasks/${task.id}/cancel`, { headers: { authorization: `Bearer ${acme.apiKey}` } });
  expect(answer.status).toBe(200);
  const view = await callHerald(herald.baseUrl, 'GET', `/v2/${account}/tasks/${task.id}`, { headers: { authorization: `Bearer ${acme.apiKey}` } });
  expect(view.body.data).toMatchObject({ type: 'CAMPAIGN_LAUNCH', state: 'CANCELLED' });
  expect((await waitForCampaign(store, campaign, ['CANCELLED'])).state).toBe('CANCELLED');
  expect(await workflowClosed(campaign)).toBe('CANCELLED');
  const atCancel = await settledCount(() => received(emails), 1000);
  expect(atCancel).toBeLessThan(40);
}, 90000);

it('stops a scheduled campaign: a draft again, nothing sent; launched again, it is sent', async () => {
  const { campaign, emails } = await campaignTo('Stop', 5);
  const inAnHour = new Date(Date.now() + 3600_000);
  const task = await launch(campaign, inAnHour);
  const scheduled = await campaignNow(store, campaign);
  expect(scheduled).toMatchObject({ state: 'SCHEDULED', launchDate: inAnHour });
  await waitUntil('the task to wait for its date', async () => (await store.tasks.findOne({ account, id: task.id }))?.message.startsWith('Scheduled for'));
  expect((await act(campaign, 'pause')).data).toMatchObject({ state: 'SCHEDULED', paused: true });

  expect((await act(campaign, 'stop')).data.state).toBe('DRAFT');
  expect((await store.tasks.findOne({ account, id: task.id }))!.state).toBe('CANCELLED');
  expect(await workflowClosed(campaign)).toBe('CANCELLED');
  expect((await campaignNow(store, campaign)).state).toBe('DRAFT'); // the workflow's end kept the draft
  expect(received(emails)).toBe(0);
  expect((await act(campaign, 'stop', 400)).error.userMessage).toMatch(/state DRAFT cannot be stopped/);

  const again = await launch(campaign);
  expect(again.id).not.toBe(task.id);
  expect((await waitForCampaign(store, campaign, ['SENT'])).recipients).toBe(5);
  await waitUntil('every message', async () => received(emails) === 5);
}, 60000);

it('sends again to the recipients whose message failed, and to them only', async () => {
  const { campaign, emails } = await campaignTo('Resend', 6);
  const soft = emails[2];
  herald.sink.deferred.length = 0;
  relay.deferRecipients = [soft]; // 450 each time: deferred, sent again once, then recorded failed
  const task = await launch(campaign);
  const sent = await waitForCampaign(store, campaign, ['SENT']);
  expect(sent.recipients).toBe(6);
  expect((await waitForTask(store, account, task.id, ['FINISHED'])).result).toEqual({ recipients: 6, sent: 5, failed: 1, dropped: 0 });
  expect(herald.sink.deferred.filter((email) => email === soft)).toHaveLength(2);
  const failedRow = (await ledgerRowOf(store, { account, email: soft, requestId: campaignRequestId(campaign.id) }))!;
  expect(failedRow).toMatchObject({ status: 'failed', event: { track_type: 'track.mail.bounced', bounce_type: 'soft' } });
  expect(received(emails)).toBe(5);

  // Round 1: the relay still defers it, so it fails again; a later round finds it by its round-1 message.
  const first = (await act(campaign, 'resend-failed')).task;
  expect(first).toMatchObject({ type: 'CAMPAIGN_RESEND', state: 'QUEUED', parameters: { campaignId: campaign.id, round: 1 } });
  expect((await waitForTask(store, account, first.id, ['FINISHED'])).result).toEqual({ recipients: 6, sent: 0, failed: 1, dropped: 0 });
  expect(received(emails)).toBe(5);

  // A resend whose process was killed after it claimed round 2, before it recorded its task: the
  // round's number is used up, nothing else sticks, and the next resend is round 3.
  expect(await claimResendRound(store, await campaignNow(store, campaign), 1)).toBe(true);

  relay.deferRecipients = [];
  const resend = (await act(campaign, 'resend-failed')).task;
  expect(resend).toMatchObject({ parameters: { campaignId: campaign.id, round: 3 } });
  expect((await waitForTask(store, account, resend.id, ['FINISHED'])).result).toEqual({ recipients: 6, sent: 1, failed: 0, dropped: 0 });
  await waitUntil('the resent message', async () => received(emails) === 6);
  const resent = herald.sink.received.filter((mail) => mail.rcptTo[0] === soft);
  expect(resent).toHaveLength(1);
  const parts = await store.campaignSnapshots.find({ account, campaignId: campaign.id }).toArray();
  const seq = parts.flatMap((part) => part.recipients).find((recipient) => recipient.email === soft)!.seq;
  expect(resent[0].parsed.messageId).toBe(messageIdOf(campaignMailId(account, campaign.id, seq, 3), 'herald.test'));
  expect([await roundRows(campaign, 1), await roundRows(campaign, 2), await roundRows(campaign, 3)]).toEqual([1, 0, 1]);
  const after = await campaignNow(store, campaign);
  expect(after).toMatchObject({ state: 'SENT', recipients: 6, launch: { rounds: 3, resendTaskId: resend.id } });

  // Nothing failed any more: another round sends nothing.
  const last = (await act(campaign, 'resend-failed')).task;
  expect((await waitForTask(store, account, last.id, ['FINISHED'])).result).toEqual({ recipients: 6, sent: 0, failed: 0, dropped: 0 });
  // It walked the snapshot in a stride of the ledger and had no page to send.
  const history = await herald.services.temporal.workflow.getHandle(workflowIds.campaign(account, campaign.id, last.id)).fetchHistory();
  const activities = history.events!.map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
  expect(activities).toContain('findResendCandidates');
  expect(activities).not.toContain('sendCampaignPage');
  expect(received(emails)).toBe(6);
  expect((await act((await store.campaigns.findOne({ account, state: 'CANCELLED' }))!, 'resend-failed', 400)).error.userMessage).toMatch(/only a SENT one/);
}, 90000);
