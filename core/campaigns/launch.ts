// A launch as its CampaignLaunch workflow carries it out (the activities call these): what the
// task launches and when, SENDING with the recipient snapshot, the paused task's message, SENT at
// the end, and CANCELLED when the launch ends otherwise. Every state change is a transition of
// ./state-machine.ts, conditional on the campaign still being this task's launch; a campaign that
// is not stops the work (PermanentFailure TASK_NOT_ACTIVE).
import { PermanentFailure } from '../shared/permanent-failure';
import { DEFERRAL } from '../sending/deferral';
import { ACTIVE_STATES, activeTask, findTask, TASK_NOT_ACTIVE, updateActiveTask } from '../tasks/tasks';
import type { CampaignDoc, Store } from '../../adapters/store/store';
import type {
  CampaignLaunchStart, CampaignSendCounts, CampaignTaskInput, CampaignTuning, TaskWorkflowInput,
} from '../../adapters/temporal/contracts';
import { writeSnapshot } from './snapshot';
import { findCampaign } from './campaigns';
import * as states from './state-machine';

/**
 * 500 recipients a page, one page at a time: each page sends SEND_CONCURRENCY messages at once
 * (the relay pool's width), so a second page in flight adds little but duplicates after a crash.
 * A run continues as new every 200 pages (100,000 recipients), well within Temporal's history
 * limits. Deferred recipients follow the one deferral policy (core/sending/deferral.ts).
 */
export const DEFAULT_CAMPAIGN_TUNING: CampaignTuning = {
  pageSize: 500, pagesInFlight: 1, pagesPerRun: 200, deferredSends: DEFERRAL.sends, deferredFirstDelayMs: DEFERRAL.firstDelayMs,
};

/** The work of `ref` stops: its campaign is no longer this task's (cancelled, stopped, or another launch's). */
export const launchNotActive = (ref: CampaignTaskInput) => new PermanentFailure(
  TASK_NOT_ACTIVE, `campaign ${ref.campaignId} is no longer sent by task ${ref.taskId}`,
);

/** The campaign of a launch's task. */
export const campaignOf = (store: Store, ref: CampaignTaskInput) => findCampaign(store, ref.account, ref.campaignId);

/** The campaign, round and tuning of a launch's task, and when to send (its launchDate; now for a resend). */
export async function prepareLaunch(store: Store, input: TaskWorkflowInput, tuning: CampaignTuning): Promise<CampaignLaunchStart> {
  const task = await activeTask(store, input.account, input.taskId);
  const ref = { ...input, campaignId: Number(task.parameters.campaignId), round: Number(task.parameters.round ?? 0) };
  const campaign = await campaignOf(store, ref);
  if (!states.mayStart(campaign, ref)) throw launchNotActive(ref);
  const launchAt = ref.round === 0 ? campaign!.launchDate?.getTime() ?? Date.now() : Date.now();
  if (launchAt > Date.now()) {
    await updateActiveTask(store, input.account, input.taskId, { message: `Scheduled for ${new Date(launchAt).toISOString()}` });
  }
  return { campaignId: ref.campaignId, round: ref.round, launchAt, tuning };
}

/**
 * The launch begins: SCHEDULED → SENDING (its lists and interests mailed now). Returns the
 * snapshot's size when it is taken already (a resend round uses the launch's), else undefined:
 * then takeSnapshot takes it while pages send.
 */
export async function startSending(store: Store, ref: CampaignTaskInput): Promise<number | undefined> {
  if (ref.round > 0) {
    const campaign = await campaignOf(store, ref);
    if (!states.isSentBy(campaign, ref)) throw launchNotActive(ref);
    return campaign!.launch!.snapshotTotal ?? 0;
  }
  const campaign = await states.beginSending(store, ref);
  if (!campaign) throw launchNotActive(ref);
  if (campaign.launch?.snapshotTotal !== undefined) return campaign.launch.snapshotTotal;
  await markMailed(store, campaign);
  return undefined;
}

/**
 * The launch's recipient snapshot (./snapshot.ts), part by part while pages send from the parts
 * written; then its size is recorded (pages take a last part that is not full only then).
 * `beat` is told the count so far. Returns the size.
 */
export async function takeSnapshot(store: Store, ref: CampaignTaskInput, beat: (written: number) => Promise<void>): Promise<number> {
  const campaign = await campaignOf(store, ref);
  if (!states.isSentBy(campaign, ref)) throw launchNotActive(ref);
  if (campaign!.launch!.snapshotTotal !== undefined) return campaign!.launch!.snapshotTotal;
  const total = await writeSnapshot(store, campaign!, beat);
  if (!(await states.recordSnapshotTotal(store, ref, total))) throw launchNotActive(ref);
  return total;
}

/** Whether the campaign is still sent by this task and the task still active: a page polls it every second (two small reads). */
export async function isStillSending(store: Store, ref: CampaignTaskInput): Promise<boolean> {
  const [campaign, task] = await Promise.all([
    store.campaigns.findOne({ _id: `${ref.account}:${ref.campaignId}`, account: ref.account }, { projection: { state: 1, launch: 1 } }),
    store.tasks.findOne({ _id: `${ref.account}:${ref.taskId}`, account: ref.account }, { projection: { state: 1 } }),
  ]);
  return states.isSentBy(campaign, ref) && task !== null && ACTIVE_STATES.includes(task.state);
}

/** A paused launch's task says so, with how far it got (the pages stopped: no progress comes meanwhile). `total`: undefined while the snapshot is taken. */
export async function notePaused(store: Store, ref: CampaignTaskInput, walked: number, total: number | undefined): Promise<void> {
  const completed = total ? Math.min(1, walked / total) : 0;
  const of = total === undefined ? '' : ` of ${total}`;
  await updateActiveTask(store, ref.account, ref.taskId, { completed, eta: -1, message: `Paused after ${walked}${of} recipients` });
}

/**
 * The launch is done: SENT with `recipients` (the snapshot's size; 0 for an empty audience). A
 * resend round leaves the campaign as it is. Returns the task's message and result.
 */
export async function finishLaunch(
  store: Store, ref: CampaignTaskInput, total: number, counts: CampaignSendCounts,
): Promise<{ message: string; result: unknown }> {
  if (ref.round === 0 && !(await states.markSent(store, ref, total))) throw launchNotActive(ref);
  const what = ref.round === 0 ? `Sent to ${counts.sent} of ${total} recipients` : `Round ${ref.round}: sent to ${counts.sent} recipients`;
  return {
    message: `${what}${counts.failed ? `, ${counts.failed} failed` : ''}${counts.dropped ? `, ${counts.dropped} dropped` : ''}`,
    result: { recipients: total, ...counts },
  };
}

/**
 * The launch ended without sending to the end (its task cancelled, the workflow cancelled, or it
 * failed): a campaign still launched by this task is CANCELLED (a stopped one is DRAFT and stays
 * so; a sent one stays SENT), and a task still active is CANCELLED.
 */
export async function settleLaunch(store: Store, input: TaskWorkflowInput): Promise<void> {
  const task = await findTask(store, input.account, input.taskId);
  if (!task) return;
  const campaignId = Number(task.parameters.campaignId);
  const round = Number(task.parameters.round ?? 0);
  if (round === 0 && Number.isInteger(campaignId)) await states.cancelLaunch(store, { ...input, campaignId, round });
  if (ACTIVE_STATES.includes(task.state)) {
    await updateActiveTask(store, input.account, input.taskId, { state: 'CANCELLED', end: new Date(), message: 'Cancelled', eta: -1 });
  }
}

/** The included lists and interests were mailed now (their lastMailed). */
async function markMailed(store: Store, campaign: CampaignDoc): Promise<void> {
  const now = new Date();
  const { account, include } = campaign;
  await Promise.all([
    include.lists.length > 0 ? store.lists.updateMany({ account, id: { $in: include.lists } }, { $set: { lastMailed: now } }) : undefined,
    include.interests.length > 0 ? store.interests.updateMany({ account, id: { $in: include.interests } }, { $set: { lastMailed: now } }) : undefined,
  ]);
}
