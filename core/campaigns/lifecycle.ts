// A campaign's launch and what changes it while it runs, as the API asks: launch (a
// CAMPAIGN_LAUNCH task and its CampaignLaunch workflow), stop, pause, resume, cancel, and resend
// to the recipients whose send failed. Each change is one transition of the state machine
// (./state-machine.ts: a conditional write, so two concurrent requests cannot both win); the
// workflow is told afterwards, and every write the workflow makes is conditional on the campaign
// still being its launch's (launch.taskId).
import { errors } from '../shared/errors';
import type { CampaignDoc, Store, TaskDoc } from '../../adapters/store/store';
import { ACTIVE_STATES, findTask, launchTask, updateActiveTask, type TaskDeps } from '../tasks/tasks';
import { isTemporalFault, requestWorkflowCancel, signalWorkflow } from '../../adapters/temporal/client';
import { CAMPAIGN_PAUSE_SIGNAL, CAMPAIGN_RESUME_SIGNAL } from '../../adapters/temporal/contracts';
import { findCampaign } from './campaigns';
import { LAUNCHED_STATES } from './model';
import * as states from './state-machine';

/** Who starts a launch or a resend, and the path that asked (the task's owner and request). */
export interface LaunchRequest { owner: { id: number; username: string }; request: string }

/**
 * The task (QUEUED), then DRAFT → SCHEDULED naming it (launchDate: the given instant, or now),
 * then its workflow. The caller validated the campaign. A campaign no longer DRAFT (a concurrent
 * launch) → 400; when the start fails the campaign is DRAFT again. A process killed between the
 * steps leaves a QUEUED task, which the task sweeper starts (core/tasks/unstarted.ts): its
 * workflow sends the campaign, or ends the task if the campaign does not name it.
 */
export async function launchCampaign(deps: TaskDeps, campaign: CampaignDoc, launch: LaunchRequest & { launchDate: Date | null }): Promise<TaskDoc> {
  const { store } = deps;
  const launchDate = launch.launchDate ?? new Date();
  let scheduledBy: number | undefined;
  try {
    return await launchTask(deps, {
      account: campaign.account,
      type: 'CAMPAIGN_LAUNCH',
      name: `Launch of campaign ${campaign.name}`,
      owner: launch.owner,
      request: launch.request,
      parameters: { campaignId: campaign.id, launchDate: launchDate.toISOString() },
      campaignId: campaign.id,
      cancellable: true,
      beforeStart: async (task) => {
        if (!(await states.schedule(store, campaign, launchDate, { taskId: task.id, workflowId: task.workflowId }))) throw await refused(store, campaign, 'launched');
        scheduledBy = task.id;
      },
    });
  } catch (error) {
    if (scheduledBy !== undefined) await states.unschedule(store, campaign, scheduledBy); // nothing started: back to the draft it was
    throw error;
  }
}

/** SCHEDULED or PENDING_APPROVAL → DRAFT: the launch's workflow is cancelled, nothing was sent. */
export async function stopCampaign(deps: TaskDeps, campaign: CampaignDoc): Promise<CampaignDoc> {
  const stopped = await states.stop(deps.store, campaign);
  if (!stopped) throw await refused(deps.store, campaign, 'stopped');
  await endLaunchTask(deps, stopped, 'Stopped: the campaign is a draft again');
  return stopped;
}

/** SCHEDULED, PENDING_APPROVAL or SENDING → CANCELLED at once; its task CANCELLED, its workflow cancelled: nothing more is sent. */
export async function cancelCampaign(deps: TaskDeps, campaign: CampaignDoc): Promise<CampaignDoc> {
  const cancelled = await states.cancel(deps.store, campaign);
  if (!cancelled) throw await refused(deps.store, campaign, 'cancelled');
  await endLaunchTask(deps, cancelled, 'Cancelled with its campaign');
  return cancelled;
}

/**
 * A launch under way stops taking pages (launch.paused true) until resumed: the page in flight
 * finishes, no other starts. A scheduled campaign paused at its launchDate waits, still SCHEDULED.
 * Pausing a paused campaign changes nothing.
 */
export function pauseCampaign(deps: TaskDeps, campaign: CampaignDoc): Promise<CampaignDoc> {
  return setPaused(deps, campaign, true);
}

/** A paused launch takes pages again, from where it stopped. */
export function resumeCampaign(deps: TaskDeps, campaign: CampaignDoc): Promise<CampaignDoc> {
  return setPaused(deps, campaign, false);
}

/**
 * A SENT campaign: round n (a CAMPAIGN_RESEND task) sends to the snapshot's recipients whose
 * latest message failed (a hard or soft bounce, or given up after deferrals; not a dropped one),
 * each with a new mail_id (campaignMailId of round n). One round at a time.
 */
export async function resendFailed(deps: TaskDeps, campaign: CampaignDoc, request: LaunchRequest): Promise<TaskDoc> {
  const { store } = deps;
  const current = await findCampaign(store, campaign.account, campaign.id);
  if (!current || current.state !== 'SENT' || !current.launch) throw errors.badRequest(`A campaign in state ${current?.state ?? campaign.state} cannot be sent again; only a SENT one`);
  const { launch } = current;
  if (launch.resendTaskId !== undefined) {
    const running = await findTask(store, campaign.account, launch.resendTaskId);
    if (running && ACTIVE_STATES.includes(running.state)) throw errors.badRequest(`A resend of this campaign is under way (task ${running.id})`);
  }
  const rounds = launch.rounds ?? 0;
  const round = rounds + 1;
  // Claims the round: of two concurrent resends, one finds the count changed.
  if (!(await states.claimResendRound(store, campaign, rounds))) throw errors.badRequest('A resend of this campaign is under way');
  try {
    return await launchTask(deps, {
      account: campaign.account,
      type: 'CAMPAIGN_RESEND',
      name: `Resend of campaign ${campaign.name} to failed recipients (round ${round})`,
      owner: request.owner,
      request: request.request,
      parameters: { campaignId: campaign.id, round },
      campaignId: campaign.id,
      cancellable: true,
      beforeStart: (task) => states.nameResendTask(store, campaign, round, task.id),
    });
  } catch (error) {
    await states.releaseResendRound(store, campaign, round, launch);
    throw error;
  }
}

async function setPaused(deps: TaskDeps, campaign: CampaignDoc, paused: boolean): Promise<CampaignDoc> {
  const { store } = deps;
  const changed = await states.setPaused(store, campaign, paused);
  if (!changed) {
    const current = await findCampaign(store, campaign.account, campaign.id);
    if (current && LAUNCHED_STATES.includes(current.state) && current.launch?.paused === paused) return current; // already so
    throw errors.badRequest(`A campaign in state ${current?.state ?? campaign.state} cannot be ${paused ? 'paused' : 'resumed'}`);
  }
  try {
    // A workflow that is not running has nothing to pause: its campaign is past sending.
    await signalWorkflow(deps.temporal, changed.launch!.workflowId, paused ? CAMPAIGN_PAUSE_SIGNAL : CAMPAIGN_RESUME_SIGNAL);
  } catch (error) {
    // The workflow was not told: the campaign (the authority on "paused") says what the workflow does.
    await states.undoPaused(store, campaign, paused);
    throw error;
  }
  return changed;
}

/**
 * The launch's task CANCELLED (when still active) and its workflow asked to stop. The campaign
 * is already out of its launched state, which stops the workflow's next page on its own: a
 * Temporal outage here delays the workflow's end, it does not let it send.
 */
async function endLaunchTask(deps: TaskDeps, campaign: CampaignDoc, message: string): Promise<void> {
  if (!campaign.launch) return;
  await updateActiveTask(deps.store, campaign.account, campaign.launch.taskId, { state: 'CANCELLED', end: new Date(), message, eta: -1 });
  try {
    await requestWorkflowCancel(deps.temporal, campaign.launch.workflowId);
  } catch (error) {
    if (!isTemporalFault(error)) throw error;
  }
}

/** 400 naming the state that refuses the change (read again: a concurrent change may be why). */
async function refused(store: Store, campaign: CampaignDoc, change: string) {
  const current = await findCampaign(store, campaign.account, campaign.id);
  return current
    ? errors.badRequest(`A campaign in state ${current.state} cannot be ${change}`)
    : errors.notFound(`Campaign ${campaign.id} not found`);
}
