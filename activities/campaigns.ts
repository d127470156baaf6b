// Activities of the CampaignLaunch workflow (workflows/campaign-launch.ts): thin adapters over
// core/campaigns/launch.ts (what the launch finds, SENDING with the snapshot, SENT, CANCELLED:
// transitions of the campaign state machine) and core/campaigns/page-send.ts (a page through
// the send engine), with the task's progress as heartbeats.
import { CancelledFailure, Context } from '@temporalio/activity';
import { DEFAULT_CAMPAIGN_TUNING, finishLaunch, notePaused, prepareLaunch, settleLaunch, startSending, takeSnapshot } from '../core/campaigns/launch';
import { createPageSender } from '../core/campaigns/page-send';
import { nextResendCandidates } from '../core/campaigns/resend';
import type {
  CampaignLaunchStart, CampaignPageInput, CampaignPageResult, CampaignSendCounts, CampaignTaskInput, CampaignTuning, TaskWorkflowInput,
} from '../adapters/temporal/contracts';
import { asActivity, engineDeps, sendControls, type SendDeps } from './adapter';
import { TaskProgress } from './task-progress';

export { DEFAULT_CAMPAIGN_TUNING };

export interface CampaignActivityDeps extends SendDeps {
  /** How launches page through their snapshot; tests make pages small and deferral retries quick. */
  campaignTuning?: Partial<CampaignTuning>;
}

/** Task progress kept per worker, so `eta` measures the launch's rate across its pages. */
const MAX_PROGRESS = 100;

export function createCampaignActivities(deps: CampaignActivityDeps) {
  const { store } = deps;
  const tuning: CampaignTuning = { ...DEFAULT_CAMPAIGN_TUNING, ...deps.campaignTuning };
  const pages = createPageSender(engineDeps(deps));
  const progresses = new Map<string, TaskProgress>();

  function progressOf(input: TaskWorkflowInput): TaskProgress {
    const key = `${input.account}:${input.taskId}`;
    let progress = progresses.get(key);
    if (!progress) {
      progress = new TaskProgress(store, { account: input.account, taskId: input.taskId });
      progresses.set(key, progress);
      if (progresses.size > MAX_PROGRESS) progresses.delete(progresses.keys().next().value!);
    }
    return progress;
  }
  const reportOf = (input: TaskWorkflowInput) => {
    const progress = progressOf(input);
    return (done: number, total: number | undefined, checkpoint: unknown, message: string) => progress.report(done, total, checkpoint, message);
  };

  return {
    /** What the task launches: its campaign, round and when to send. TaskNotActive when it is no longer the campaign's launch. */
    prepareCampaignLaunch(input: TaskWorkflowInput): Promise<CampaignLaunchStart> {
      return asActivity(() => prepareLaunch(store, input, tuning));
    },

    /** SCHEDULED → SENDING; the snapshot's size when it is taken already (a resend round: the launch's), else null. */
    async startCampaignSending(input: CampaignTaskInput): Promise<number | null> {
      return (await asActivity(() => startSending(store, input))) ?? null;
    },

    /** The recipient snapshot, written part by part while pages send; returns its size. Heartbeats per part. */
    takeCampaignSnapshot(input: CampaignTaskInput): Promise<number> {
      return asActivity(() => takeSnapshot(store, input, async (written) => {
        const context = Context.current();
        context.heartbeat({ written });
        if (context.cancellationSignal.aborted) throw new CancelledFailure('snapshot cancelled');
      }));
    },

    /** A paused launch's task says so, with how far it got. */
    noteCampaignPaused(input: CampaignTaskInput & { walked: number; total?: number }): Promise<void> {
      return notePaused(store, input, input.walked, input.total);
    },

    /** Sends the page's messages the ledger does not show as done; `deferred`: the seqs the relay deferred. */
    sendCampaignPage(input: CampaignPageInput): Promise<CampaignPageResult> {
      const { signal, log } = sendControls();
      return asActivity(() => pages.send(input, { signal, log, report: reportOf(input) }));
    },

    /** A resend round's next recipients to send to (at most `want`), and where its walk goes on. */
    findResendCandidates(input: CampaignTaskInput & { from: number; total: number; want: number }): Promise<{ seqs: number[]; next: number }> {
      return asActivity(() => nextResendCandidates(store, input));
    },

    /** After a page's retries (or a recipient's deferrals) ran out: its unsent messages soft-bounce. */
    recordCampaignPageFailed(input: CampaignPageInput & { reason: string }): Promise<CampaignPageResult> {
      return asActivity(() => pages.giveUp(input, input.reason, Context.current().log));
    },

    /** The launch is done: SENT (a resend round leaves the campaign as it is); the task's message and result. */
    finishCampaign(input: CampaignTaskInput & { total: number; counts: CampaignSendCounts }): Promise<{ message: string; result: unknown }> {
      return asActivity(() => finishLaunch(store, input, input.total, input.counts));
    },

    /** The launch ended without sending to the end: its campaign (still this task's) and its task CANCELLED. */
    settleCampaignLaunch(input: TaskWorkflowInput): Promise<void> {
      return settleLaunch(store, input);
    },
  };
}
