// Activities of the CampaignLaunch workflow (workflows/campaign-launch.ts): what the launch finds
// at its start, SCHEDULED → SENDING and the recipient snapshot, the pages
// (activities/campaign-pages.ts), SENT at the end, and CANCELLED when the launch ends otherwise.
// Every write on the campaign is conditional on it still being this task's launch.
import { defaultBounceDomain } from '../core/bounces/return-path';
import { writeSnapshot } from '../core/campaigns/audience';
import { LAUNCHED_STATES } from '../core/campaigns/model';
import type { CampaignDoc, Store } from '../adapters/store/store';
import { ACTIVE_STATES, updateActiveTask } from '../core/tasks/tasks';
import type { RelaySender } from '../adapters/relay/transport';
import type {
  CampaignLaunchStart, CampaignSendCounts, CampaignTaskInput, CampaignTuning, TaskWorkflowInput,
} from '../adapters/temporal/contracts';
import { createCampaignPageActivities, notActive, ownsCampaign } from './campaign-pages';
import { TaskProgress } from './task-progress';
import { activeTask } from './tasks';

export interface CampaignActivityDeps {
  store: Store;
  transport: RelaySender;
  mtaHost: string;
  publicUrl: string;
  bounceDomain?: string;
  /** How launches page through their snapshot; tests make pages small and deferral retries quick. */
  campaignTuning?: Partial<CampaignTuning>;
}

/**
 * 500 recipients a page, one page at a time: each page sends SEND_CONCURRENCY messages at once
 * (the relay pool's width), so a second page in flight adds little but duplicates after a crash.
 * A run continues as new every 200 pages (100,000 recipients), well within Temporal's history limits.
 */
export const DEFAULT_CAMPAIGN_TUNING: CampaignTuning = {
  pageSize: 500, pagesInFlight: 1, pagesPerRun: 200, deferredSends: 10, deferredFirstDelayMs: 1000,
};

export function createCampaignActivities(deps: CampaignActivityDeps) {
  const { store } = deps;
  const tuning: CampaignTuning = { ...DEFAULT_CAMPAIGN_TUNING, ...deps.campaignTuning };
  const pages = createCampaignPageActivities({
    store, transport: deps.transport, mtaHost: deps.mtaHost, publicUrl: deps.publicUrl,
    bounceDomain: deps.bounceDomain ?? defaultBounceDomain(deps.mtaHost),
  });
  const campaignOf = (input: CampaignTaskInput) => store.campaigns.findOne({ _id: `${input.account}:${input.campaignId}`, account: input.account });

  return {
    ...pages,

    /**
     * What the task launches: its campaign, round and when to send. Fails with TaskNotActive when
     * the task was cancelled or the campaign is no longer this task's (stopped before it began).
     */
    async prepareCampaignLaunch(input: TaskWorkflowInput): Promise<CampaignLaunchStart> {
      const task = await activeTask(store, input);
      const campaignId = Number(task.parameters.campaignId);
      const round = Number(task.parameters.round ?? 0);
      const campaign = await campaignOf({ ...input, campaignId, round });
      const owned = round === 0
        ? campaign?.launch?.taskId === input.taskId && LAUNCHED_STATES.includes(campaign.state)
        : ownsCampaign(campaign, { ...input, campaignId, round });
      if (!owned) throw notActive({ ...input, campaignId, round });
      const launchAt = round === 0 ? campaign!.launchDate?.getTime() ?? Date.now() : Date.now();
      if (launchAt > Date.now()) {
        await updateActiveTask(store, input.account, input.taskId, { message: `Scheduled for ${new Date(launchAt).toISOString()}` });
      }
      return { campaignId, round, launchAt, tuning };
    },

    /**
     * The launch begins: SCHEDULED → SENDING, then the recipient snapshot (taken once: a retry
     * after its count was recorded returns that count). A resend round uses the launch's snapshot.
     * Returns the snapshot's size.
     */
    async startCampaignSending(input: CampaignTaskInput): Promise<number> {
      const { account, campaignId, taskId } = input;
      if (input.round > 0) {
        const campaign = await campaignOf(input);
        if (!ownsCampaign(campaign, input)) throw notActive(input);
        return campaign!.launch!.snapshotTotal ?? 0;
      }
      const campaign = await store.campaigns.findOneAndUpdate(
        { _id: `${account}:${campaignId}`, account, state: { $in: ['SCHEDULED', 'SENDING'] }, 'launch.taskId': taskId },
        { $set: { state: 'SENDING', lastModified: new Date() } },
        { returnDocument: 'after' },
      );
      if (!campaign) throw notActive(input);
      if (campaign.launch?.snapshotTotal !== undefined) return campaign.launch.snapshotTotal;
      await markMailed(store, campaign);
      const progress = new TaskProgress(store, input);
      await progress.report(0, undefined, null, 'Taking the audience snapshot');
      const total = await writeSnapshot(store, campaign, (written) => progress.report(0, undefined, { written }, `Taking the audience snapshot: ${written} recipients`));
      const recorded = await store.campaigns.updateOne(
        { _id: campaign._id, account, state: 'SENDING', 'launch.taskId': taskId },
        { $set: { 'launch.snapshotTotal': total } },
      );
      if (recorded.matchedCount === 0) throw notActive(input);
      return total;
    },

    /** A paused launch's task says so, with how far it got (the pages stopped: no progress comes meanwhile). */
    async noteCampaignPaused(input: CampaignTaskInput & { walked: number; total: number }): Promise<void> {
      const completed = input.total > 0 ? Math.min(1, input.walked / input.total) : 0;
      await updateActiveTask(store, input.account, input.taskId, {
        completed, eta: -1, message: `Paused after ${input.walked} of ${input.total} recipients`,
      });
    },

    /**
     * The launch is done: SENT with `recipients` (the snapshot's size; 0 for an empty audience).
     * A resend round leaves the campaign as it is. Returns the task's message and result.
     */
    async finishCampaign(input: CampaignTaskInput & { total: number; counts: CampaignSendCounts }): Promise<{ message: string; result: unknown }> {
      const { account, campaignId, taskId, total, counts } = input;
      if (input.round === 0) {
        const sent = await store.campaigns.updateOne(
          { _id: `${account}:${campaignId}`, account, state: 'SENDING', 'launch.taskId': taskId },
          { $set: { state: 'SENT', recipients: total, lastModified: new Date() } },
        );
        if (sent.matchedCount === 0) throw notActive(input);
      }
      const what = input.round === 0 ? `Sent to ${counts.sent} of ${total} recipients` : `Round ${input.round}: sent to ${counts.sent} recipients`;
      return {
        message: `${what}${counts.failed ? `, ${counts.failed} failed` : ''}${counts.dropped ? `, ${counts.dropped} dropped` : ''}`,
        result: { recipients: total, ...counts },
      };
    },

    /**
     * The launch ended without sending to the end (its task cancelled, the workflow cancelled, or
     * it failed): a campaign still launched by this task is CANCELLED (a stopped one is DRAFT and
     * stays so; a sent one stays SENT), and a task still active is CANCELLED.
     */
    async settleCampaignLaunch(input: TaskWorkflowInput): Promise<void> {
      const task = await store.tasks.findOne({ _id: `${input.account}:${input.taskId}`, account: input.account });
      if (!task) return;
      const campaignId = Number(task.parameters.campaignId);
      if (Number(task.parameters.round ?? 0) === 0 && Number.isInteger(campaignId)) {
        await store.campaigns.updateOne(
          { _id: `${input.account}:${campaignId}`, account: input.account, state: { $in: [...LAUNCHED_STATES] }, 'launch.taskId': input.taskId },
          { $set: { state: 'CANCELLED', lastModified: new Date() } },
        );
      }
      if (ACTIVE_STATES.includes(task.state)) {
        await updateActiveTask(store, input.account, input.taskId, { state: 'CANCELLED', end: new Date(), message: 'Cancelled', eta: -1 });
      }
    },
  };
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
