// The campaign state machine: every change of a campaign's state, and of the launch record that
// says which task sends it, is one function here, a single conditional write whose filter is its
// precondition (so of two concurrent changes one wins, and a late write of an old launch changes
// nothing). The API's side (./lifecycle.ts) and the launch's activities (./launch.ts) ask these
// functions; nothing else writes a campaign's state.
//
//   DRAFT ─schedule→ SCHEDULED ─beginSending→ SENDING ─markSent→ SENT (resend rounds: still SENT)
//     ↑                  │ stop (SCHEDULED, PENDING_APPROVAL) → DRAFT
//     └── unschedule ────┘ cancel / cancelLaunch (SCHEDULED, PENDING_APPROVAL, SENDING) → CANCELLED
//
// "Paused" has one authority: the campaign's `launch.paused`, which pause and resume write here
// (and the API shows). The CampaignLaunch workflow keeps a copy that only the pause and resume
// signals change; ./lifecycle.ts signals it after each write and undoes the write when the signal
// cannot be sent, so the copy follows the document and never leads it.
import type { CampaignDoc, CampaignLaunchDoc, CampaignState, Store } from '../../adapters/store/store';
import type { CampaignTaskInput } from '../../adapters/temporal/contracts';
import { LAUNCHED_STATES } from './model';

/** States a stop takes back to DRAFT (nothing was sent yet). */
const STOPPABLE: readonly CampaignState[] = ['SCHEDULED', 'PENDING_APPROVAL'];

const byId = (campaign: Pick<CampaignDoc, '_id' | 'account'>) => ({ _id: campaign._id, account: campaign.account });
const ofLaunch = (ref: CampaignTaskInput) => ({ _id: `${ref.account}:${ref.campaignId}`, account: ref.account, 'launch.taskId': ref.taskId });
const changed = { returnDocument: 'after' } as const;

/**
 * DRAFT → SCHEDULED at `launchDate`, naming its launch's task and workflow in the same write (the
 * workflow acts only on a campaign naming its task). Null: the campaign is no longer DRAFT.
 */
export function schedule(store: Store, campaign: CampaignDoc, launchDate: Date, launch: Pick<CampaignLaunchDoc, 'taskId' | 'workflowId'>): Promise<CampaignDoc | null> {
  return store.campaigns.findOneAndUpdate(
    { ...byId(campaign), state: 'DRAFT' },
    { $set: { state: 'SCHEDULED', launchDate, launch: { ...launch, paused: false, rounds: 0 }, lastModified: new Date() } },
    changed,
  );
}

/** SCHEDULED by task `taskId` → DRAFT as `before` was (its launchDate and last launch): the launch's workflow could not start. */
export async function unschedule(store: Store, before: CampaignDoc, taskId: number): Promise<void> {
  await store.campaigns.updateOne(
    { ...byId(before), state: 'SCHEDULED', 'launch.taskId': taskId },
    before.launch
      ? { $set: { state: 'DRAFT', launchDate: before.launchDate, launch: before.launch, lastModified: new Date() } }
      : { $set: { state: 'DRAFT', launchDate: before.launchDate, lastModified: new Date() }, $unset: { launch: '' } },
  );
}

/** SCHEDULED or PENDING_APPROVAL → DRAFT. Null: in another state. */
export function stop(store: Store, campaign: CampaignDoc): Promise<CampaignDoc | null> {
  return store.campaigns.findOneAndUpdate(
    { ...byId(campaign), state: { $in: [...STOPPABLE] } }, { $set: { state: 'DRAFT', lastModified: new Date() } }, changed,
  );
}

/** SCHEDULED, PENDING_APPROVAL or SENDING → CANCELLED. Null: not launched. */
export function cancel(store: Store, campaign: CampaignDoc): Promise<CampaignDoc | null> {
  return store.campaigns.findOneAndUpdate(
    { ...byId(campaign), state: { $in: [...LAUNCHED_STATES] } }, { $set: { state: 'CANCELLED', lastModified: new Date() } }, changed,
  );
}

/** A launched campaign's `launch.paused` from !paused to `paused`. Null: not launched, or already so. */
export function setPaused(store: Store, campaign: CampaignDoc, paused: boolean): Promise<CampaignDoc | null> {
  return store.campaigns.findOneAndUpdate(
    { ...byId(campaign), state: { $in: [...LAUNCHED_STATES] }, 'launch.paused': !paused },
    { $set: { 'launch.paused': paused, lastModified: new Date() } },
    changed,
  );
}

/** Undoes setPaused(paused) (its workflow could not be told). */
export async function undoPaused(store: Store, campaign: CampaignDoc, paused: boolean): Promise<void> {
  await store.campaigns.updateOne({ ...byId(campaign), 'launch.paused': paused }, { $set: { 'launch.paused': !paused } });
}

/** The launch begins: SCHEDULED → SENDING (SENDING again for a retry), while the campaign is this task's. Null: it is not. */
export function beginSending(store: Store, ref: CampaignTaskInput): Promise<CampaignDoc | null> {
  return store.campaigns.findOneAndUpdate(
    { ...ofLaunch(ref), state: { $in: ['SCHEDULED', 'SENDING'] } }, { $set: { state: 'SENDING', lastModified: new Date() } }, changed,
  );
}

/** The launch's snapshot size, on its SENDING campaign. False: the campaign is no longer this task's. */
export async function recordSnapshotTotal(store: Store, ref: CampaignTaskInput, total: number): Promise<boolean> {
  const { matchedCount } = await store.campaigns.updateOne({ ...ofLaunch(ref), state: 'SENDING' }, { $set: { 'launch.snapshotTotal': total } });
  return matchedCount === 1;
}

/** The launch is done: SENDING → SENT with `recipients`. False: the campaign is no longer this task's. */
export async function markSent(store: Store, ref: CampaignTaskInput, recipients: number): Promise<boolean> {
  const { matchedCount } = await store.campaigns.updateOne(
    { ...ofLaunch(ref), state: 'SENDING' }, { $set: { state: 'SENT', recipients, lastModified: new Date() } },
  );
  return matchedCount === 1;
}

/** The launch ended without sending to the end: a campaign still launched by this task → CANCELLED (a stopped or sent one stays). */
export async function cancelLaunch(store: Store, ref: CampaignTaskInput): Promise<void> {
  await store.campaigns.updateOne(
    { ...ofLaunch(ref), state: { $in: [...LAUNCHED_STATES] } }, { $set: { state: 'CANCELLED', lastModified: new Date() } },
  );
}

/** Resend round `rounds + 1` claimed on a SENT campaign that has had `rounds`. False: another resend claimed it first. */
export async function claimResendRound(store: Store, campaign: CampaignDoc, rounds: number): Promise<boolean> {
  const claimed = await store.campaigns.findOneAndUpdate(
    { ...byId(campaign), state: 'SENT', 'launch.rounds': rounds === 0 ? { $in: [0, null] } : rounds },
    { $set: { 'launch.rounds': rounds + 1 } },
  );
  return claimed !== null;
}

/** The claimed round names its task. */
export async function nameResendTask(store: Store, campaign: CampaignDoc, round: number, taskId: number): Promise<void> {
  await store.campaigns.updateOne({ ...byId(campaign), 'launch.rounds': round }, { $set: { 'launch.resendTaskId': taskId } });
}

/** Round `round` given back (its workflow could not start): the launch's rounds and resend task as `before` had them. */
export async function releaseResendRound(store: Store, campaign: CampaignDoc, round: number, before: CampaignLaunchDoc): Promise<void> {
  await store.campaigns.updateOne(
    { ...byId(campaign), 'launch.rounds': round },
    before.resendTaskId === undefined
      ? { $set: { 'launch.rounds': round - 1 }, $unset: { 'launch.resendTaskId': '' } }
      : { $set: { 'launch.rounds': round - 1, 'launch.resendTaskId': before.resendTaskId } },
  );
}

/** Whether the campaign is still this task's launch (round 0, SENDING) or resend (round n, SENT). */
export function isSentBy(campaign: Pick<CampaignDoc, 'state' | 'launch'> | null, ref: CampaignTaskInput): boolean {
  if (!campaign?.launch) return false;
  return ref.round === 0
    ? campaign.state === 'SENDING' && campaign.launch.taskId === ref.taskId
    : campaign.state === 'SENT' && campaign.launch.resendTaskId === ref.taskId;
}

/** Whether the task may (still) start its launch or resend: a launch's campaign in any launched state, a resend's as isSentBy. */
export function mayStart(campaign: CampaignDoc | null, ref: CampaignTaskInput): boolean {
  return ref.round === 0
    ? campaign?.launch?.taskId === ref.taskId && LAUNCHED_STATES.includes(campaign.state)
    : isSentBy(campaign, ref);
}
