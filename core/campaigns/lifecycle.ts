// OWNED BY HELPER B (workflow + sending). Stub signatures fixed by the lead; replace the bodies.
// A campaign's launch and what changes it while it runs: launch (a CAMPAIGN_LAUNCH task and its
// CampaignLaunch workflow), stop, pause, resume, cancel, and resend to the recipients whose send failed.
import type { CampaignDoc, TaskDoc } from '../store';
import type { TaskDeps } from '../tasks';

/** Who starts a launch or a resend, and the path that asked (the task's owner and request). */
export interface LaunchRequest { owner: { id: number; username: string }; request: string }

/**
 * DRAFT → SCHEDULED (launchDate: the given instant, or now), then the task (QUEUED) and its
 * workflow. The caller validated the campaign. A campaign no longer DRAFT (a concurrent launch)
 * → 400; when the start fails the campaign is DRAFT again.
 */
export async function launchCampaign(_deps: TaskDeps, _campaign: CampaignDoc, _launch: LaunchRequest & { launchDate: Date | null }): Promise<TaskDoc> {
  throw new Error('not implemented yet');
}

/** SCHEDULED or PENDING_APPROVAL → DRAFT: the launch's workflow is cancelled, nothing was sent. */
export async function stopCampaign(_deps: TaskDeps, _campaign: CampaignDoc): Promise<CampaignDoc> {
  throw new Error('not implemented yet');
}

/** SCHEDULED, PENDING_APPROVAL or SENDING → CANCELLED at once; its task CANCELLED, its workflow cancelled: nothing more is sent. */
export async function cancelCampaign(_deps: TaskDeps, _campaign: CampaignDoc): Promise<CampaignDoc> {
  throw new Error('not implemented yet');
}

/** A launch under way stops taking pages (launch.paused true) until resumed. */
export async function pauseCampaign(_deps: TaskDeps, _campaign: CampaignDoc): Promise<CampaignDoc> {
  throw new Error('not implemented yet');
}

export async function resumeCampaign(_deps: TaskDeps, _campaign: CampaignDoc): Promise<CampaignDoc> {
  throw new Error('not implemented yet');
}

/** A SENT campaign: a new round to the recipients whose message failed (soft bounce or gave up), as a task. */
export async function resendFailed(_deps: TaskDeps, _campaign: CampaignDoc, _request: LaunchRequest): Promise<TaskDoc> {
  throw new Error('not implemented yet');
}
