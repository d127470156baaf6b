// A page of a campaign's recipient snapshot, sent through the send engine's per-message loop
// (activities/message-sender.ts), as transactional requests are. A page is read by its rows'
// _ids (recipientDocId of each seq: an _id lookup, on MongoDB and on the embedded store alike),
// and the ledger decides what is left: a message whose mail_id has a row is not sent again, so a
// retried or resumed page never re-sends.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { planCampaign, type CampaignPlan } from '../core/campaigns/plan';
import { campaignMailId, recipientDocId } from '../core/campaigns/model';
import { buildEvent } from '../core/tracking/events';
import { LedgerWriter } from '../core/sending/ledger';
import type { CampaignDoc, CampaignRecipientDoc, EventDoc, MessageDoc } from '../adapters/store/store';
import { ACTIVE_STATES } from '../core/tasks/tasks';
import { trackingSecret } from '../core/content/tracking/secret';
import type { CampaignPageInput, CampaignPageResult, CampaignTaskInput } from '../adapters/temporal/contracts';
import { ledgerRow, recordLedgerEvents, sendMessages, type MessageSenderDeps, type OutgoingMessage } from './message-sender';
import { TaskProgress } from './task-progress';
import { TASK_INPUT_ERROR, TASK_NOT_ACTIVE } from './tasks';

export interface CampaignPageDeps extends MessageSenderDeps { publicUrl: string }

/** Plans kept per worker (a campaign's plan is its compiled content: built once, used by every page). */
const MAX_PLANS = 16;
/** Task progress kept per worker, so `eta` measures the launch's rate across its pages. */
const MAX_PROGRESS = 100;

interface PageMessage extends OutgoingMessage { seq: number }

/** A page's recipients, and what the ledger says of them. */
interface PageWork {
  campaign: CampaignDoc;
  /** Recipients of this round without a row of this round, in seq order. */
  pending: CampaignRecipientDoc[];
  /** Counts of the rows this round already has (sent by an attempt whose result was lost). */
  done: { sent: number; failed: number; dropped: number };
  doneEvents: EventDoc[];
}

/** Whether the campaign is still this task's launch (round 0, SENDING) or resend (round n, SENT). */
export function ownsCampaign(campaign: Pick<CampaignDoc, 'state' | 'launch'> | null, input: CampaignTaskInput): boolean {
  if (!campaign?.launch) return false;
  return input.round === 0
    ? campaign.state === 'SENDING' && campaign.launch.taskId === input.taskId
    : campaign.state === 'SENT' && campaign.launch.resendTaskId === input.taskId;
}

export const notActive = (input: CampaignTaskInput) => ApplicationFailure.nonRetryable(
  `campaign ${input.campaignId} is no longer sent by task ${input.taskId}`, TASK_NOT_ACTIVE,
);

export function createCampaignPageActivities(deps: CampaignPageDeps) {
  const { store, mtaHost, publicUrl } = deps;
  const plans = new Map<string, Promise<CampaignPlan>>();
  const progresses = new Map<string, TaskProgress>();

  /** The campaign's plan for the round, built once per worker (a launched campaign's content no longer changes). */
  function planOf(campaign: CampaignDoc, round: number): Promise<CampaignPlan> {
    const key = `${campaign._id}:${campaign.launch?.taskId}:${round}`;
    let plan = plans.get(key);
    if (!plan) {
      plan = (async () => {
        const fields = await store.fields.find({ account: campaign.account }).toArray();
        return planCampaign(campaign, fields, { mtaHost, links: { publicUrl, secret: await trackingSecret(store) } }, round);
      })();
      plans.set(key, plan);
      plan.catch(() => plans.delete(key));
      if (plans.size > MAX_PLANS) plans.delete(plans.keys().next().value!);
    }
    return plan;
  }

  function progressOf(input: CampaignTaskInput): TaskProgress {
    const key = `${input.account}:${input.taskId}`;
    let progress = progresses.get(key);
    if (!progress) {
      progress = new TaskProgress(store, { account: input.account, taskId: input.taskId });
      progresses.set(key, progress);
      if (progresses.size > MAX_PROGRESS) progresses.delete(progresses.keys().next().value!);
    }
    return progress;
  }

  async function loadPage(input: CampaignPageInput): Promise<PageWork> {
    const { account, campaignId, round } = input;
    const campaign = await store.campaigns.findOne({ _id: `${account}:${campaignId}`, account });
    if (!ownsCampaign(campaign, input)) throw notActive(input);
    const seqs = input.seqs ?? Array.from({ length: Math.max(0, input.to - input.from) }, (_, i) => input.from + i);
    const rows = (await store.campaignRecipients.find({ _id: { $in: seqs.map((seq) => recipientDocId(account, campaignId, seq)) }, account }).toArray())
      .sort((a, b) => a.seq - b.seq);
    // This round's mail_id of each recipient, and (for a resend) those of the rounds before it.
    const ids = rows.flatMap((row) => Array.from({ length: round + 1 }, (_, r) => campaignMailId(account, campaignId, row.seq, r)));
    const ledger = ids.length === 0 ? [] : await store.messages.find({ _id: { $in: ids }, account })
      .project<Pick<MessageDoc, '_id' | 'status' | 'event'>>({ _id: 1, status: 1, event: 1 }).toArray();
    const rowsById = new Map(ledger.map((row) => [row._id, row]));
    const done = { sent: 0, failed: 0, dropped: 0 };
    const doneEvents: EventDoc[] = [];
    const pending = rows.filter((row) => {
      const own = rowsById.get(campaignMailId(account, campaignId, row.seq, round));
      if (own) {
        done[own.status] += 1;
        doneEvents.push(own.event);
        return false;
      }
      if (round === 0) return true;
      // A resend goes to those whose latest message (of an earlier round) failed.
      for (let r = round - 1; r >= 0; r -= 1) {
        const latest = rowsById.get(campaignMailId(account, campaignId, row.seq, r));
        if (latest) return latest.status === 'failed';
      }
      return false;
    });
    return { campaign: campaign!, pending, done, doneEvents };
  }

  async function planFor(campaign: CampaignDoc, round: number): Promise<CampaignPlan> {
    try {
      return await planOf(campaign, round);
    } catch (error) {
      // The content cannot be built: no retry helps, the launch fails with the reason.
      throw ApplicationFailure.nonRetryable(`The campaign's content cannot be built: ${(error as Error).message}`, TASK_INPUT_ERROR);
    }
  }

  return {
    /**
     * Sends the page's messages that the ledger does not show as done. Recipients the relay
     * deferred (4xx) come back in `deferred` (the workflow sends them again later). Stops taking
     * messages within a second once the campaign is no longer this task's (cancelled, stopped) or
     * the task is no longer active, and fails with TaskNotActive; relay trouble fails the attempt,
     * whose retry resumes from the ledger.
     */
    async sendCampaignPage(input: CampaignPageInput): Promise<CampaignPageResult> {
      const { account, campaignId } = input;
      const work = await loadPage(input);
      await recordLedgerEvents(store, work.doneEvents);
      const plan = await planFor(work.campaign, input.round);
      const progress = progressOf(input);
      let stopped = false;
      const alreadyDone = work.done.sent + work.done.failed + work.done.dropped;
      const tally = await sendMessages<PageMessage>(deps, {
        account,
        messages: work.pending.map((row) => ({ message: plan.message(row), sender: plan.sender, seq: row.seq })),
        isHalted: () => stopped,
        beat: (done) => {
          // A page of deferred recipients sends again within what was walked already.
          const walked = Math.min(input.total, input.walked + (input.seqs ? 0 : alreadyDone + done));
          return progress.report(walked, input.total, { from: input.from, to: input.to, done }, `Sending: ${walked} of ${input.total} recipients`);
        },
        poll: async () => {
          const [campaign, task] = await Promise.all([
            store.campaigns.findOne({ _id: `${account}:${campaignId}`, account }, { projection: { state: 1, launch: 1 } }),
            store.tasks.findOne({ _id: `${account}:${input.taskId}`, account }, { projection: { state: 1 } }),
          ]);
          if (!ownsCampaign(campaign, input) || !task || !ACTIVE_STATES.includes(task.state)) stopped = true;
        },
      });
      if (tally.halted) throw notActive(input);
      return {
        sent: work.done.sent + tally.sent,
        failed: work.done.failed + tally.failed,
        dropped: work.done.dropped + tally.dropped,
        deferred: tally.deferred.map((item) => item.seq),
      };
    },

    /**
     * After a page's retries ran out (or a deferred recipient's sends did): each of its messages
     * the ledger does not show gets a soft bounce, so no recipient is silently left out; a
     * resend round sends to them again.
     */
    async recordCampaignPageFailed(input: CampaignPageInput & { reason: string }): Promise<CampaignPageResult> {
      const work = await loadPage(input);
      const plan = await planFor(work.campaign, input.round);
      const ledger = new LedgerWriter(store);
      const at = new Date();
      await Promise.all(work.pending.map((row) => {
        const message = plan.message(row);
        message.subject.sent_timestamp = at;
        const event = buildEvent('track.mail.bounced', message.subject, at, 'gave-up', { bounce_type: 'soft', message: `not sent: ${input.reason}`.slice(0, 500) });
        return ledger.record(ledgerRow(message, 'failed', input.reason, event, mtaHost));
      }));
      Context.current().log.warn('campaign recipients recorded as failed', { campaignId: input.campaignId, count: work.pending.length, reason: input.reason });
      return { ...work.done, failed: work.done.failed + work.pending.length, deferred: [] };
    },
  };
}
