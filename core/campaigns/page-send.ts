// A page of a campaign's recipient snapshot, sent through the send engine as transactional
// requests are: the campaign's plan (./plan.ts, built once per worker), the resume from the
// ledger (core/sending/resume.ts), the per-message loop (core/sending/message-loop.ts) and, when
// the workflow gives up on recipients, their soft bounces (core/sending/give-up.ts). A page's
// recipients are read from the snapshot's parts by `_id` (./snapshot.ts), and the ledger decides
// what is left: a message whose mail_id has a row is not sent again, so a retried or resumed page
// never re-sends.
import { linkTablesOf } from '../content/tracking/link-tables';
import { trackingSecret } from '../content/tracking/secret';
import { PermanentFailure } from '../shared/permanent-failure';
import { recordUnsent } from '../sending/give-up';
import { LedgerWriter } from '../sending/ledger';
import { sendMessages, SendingStopped, type LoopControls, type MessageLoopDeps, type OutgoingMessage, type SendLog } from '../sending/message-loop';
import { resumeFromLedger, type OutcomeCounts } from '../sending/resume';
import { TASK_INPUT_ERROR, type ProgressReport } from '../tasks/tasks';
import type { CampaignDoc, CampaignRecipient } from '../../adapters/store/store';
import type { CampaignPageInput, CampaignPageResult } from '../../adapters/temporal/contracts';
import { campaignOf, isStillSending, launchNotActive } from './launch';
import { planCampaign, type CampaignPlan } from './plan';
import { pendingOfRound } from './resend';
import { snapshotRecipients } from './snapshot';
import { isSentBy } from './state-machine';

export interface PageSenderDeps extends MessageLoopDeps { publicUrl: string }

/** What a page takes from its activity: the loop's controls, and the task's progress (which heartbeats). */
export interface PageControls extends LoopControls { report: ProgressReport }

/** How often a page whose snapshot part is still being written looks again. */
const SNAPSHOT_POLL_MS = 100;

/** Plans kept per sender (a campaign's plan is its compiled content: built once, used by every page). */
const MAX_PLANS = 16;

interface PageMessage extends OutgoingMessage { seq: number }

/** A page's recipients, and what the ledger says of them. */
interface PageWork {
  campaign: CampaignDoc;
  /** Recipients of this round without a row of this round, in seq order. */
  pending: CampaignRecipient[];
  /** Counts of the rows this round already has (sent by an attempt whose result was lost). */
  done: OutcomeCounts;
}

export function createPageSender(deps: PageSenderDeps) {
  const { store, mtaHost, publicUrl } = deps;
  const plans = new Map<string, Promise<CampaignPlan>>();

  /** The campaign's plan for the round, built once (a launched campaign's content no longer changes). */
  function planOf(campaign: CampaignDoc, round: number): Promise<CampaignPlan> {
    const key = `${campaign._id}:${campaign.launch?.taskId}:${round}`;
    let plan = plans.get(key);
    if (!plan) {
      plan = (async () => {
        const fields = await store.fields.find({ account: campaign.account }).toArray();
        return planCampaign(campaign, fields, { mtaHost, links: { publicUrl, secret: await trackingSecret(store) }, linkTables: linkTablesOf(store) }, round);
      })();
      plans.set(key, plan);
      plan.catch(() => plans.delete(key));
      if (plans.size > MAX_PLANS) plans.delete(plans.keys().next().value!);
    }
    return plan;
  }

  async function planFor(campaign: CampaignDoc, round: number): Promise<CampaignPlan> {
    try {
      return await planOf(campaign, round);
    } catch (error) {
      // The content cannot be built: no retry helps, the launch fails with the reason.
      throw new PermanentFailure(TASK_INPUT_ERROR, `The campaign's content cannot be built: ${(error as Error).message}`);
    }
  }

  /**
   * The page's recipients and what the ledger says of them. With `wait`, a page whose snapshot
   * parts are still being written waits for them (calling `wait` between looks); without, it
   * takes what is there.
   */
  async function loadPage(input: CampaignPageInput, wait?: () => Promise<void>): Promise<PageWork> {
    const { account, campaignId, round } = input;
    const seqs = input.seqs ?? Array.from({ length: Math.max(0, input.to - input.from) }, (_, i) => input.from + i);
    let campaign: CampaignDoc | null;
    let rows: CampaignRecipient[];
    for (;;) {
      // The campaign before the parts: once it shows the snapshot's total, every part is written.
      campaign = await campaignOf(store, input);
      if (!isSentBy(campaign, input)) throw launchNotActive(input);
      const snapshot = await snapshotRecipients(store, account, campaignId, campaign!.launch!.taskId, seqs);
      if (!wait || snapshot.fullParts || campaign!.launch!.snapshotTotal !== undefined) {
        rows = snapshot.recipients;
        break;
      }
      await wait();
    }
    const { own, read, pending } = await pendingOfRound(store, account, campaignId, round, rows);
    const { done, counts } = await resumeFromLedger(store, account, own, read);
    return { campaign: campaign!, pending: pending.filter((_, i) => !done.has(own[i])), done: counts };
  }

  return {
    /**
     * Sends the page's messages that the ledger does not show as done. Recipients the relay
     * deferred (4xx) come back in `deferred` (the workflow sends them again later). Stops taking
     * messages within a second once the campaign is no longer this task's (cancelled, stopped) or
     * the task is no longer active (TASK_NOT_ACTIVE); relay trouble fails the attempt, whose
     * retry resumes from the ledger.
     */
    async send(input: CampaignPageInput, controls: PageControls): Promise<CampaignPageResult> {
      const work = await loadPage(input, async () => {
        if (controls.signal?.aborted) throw new SendingStopped(controls.signal.reason);
        await controls.report(input.walked, input.total, null, `Reading the audience: sending begins at recipient ${input.walked}`);
        await new Promise((resolve) => setTimeout(resolve, SNAPSHOT_POLL_MS));
      });
      const plan = await planFor(work.campaign, input.round);
      const alreadyDone = work.done.sent + work.done.failed + work.done.dropped;
      let stopped = false;
      const tally = await sendMessages<PageMessage>(deps, {
        signal: controls.signal,
        log: controls.log,
        account: input.account,
        stream: 'campaign',
        messages: work.pending.map((row) => ({ message: plan.message(row), sender: plan.sender, seq: row.seq })),
        isHalted: () => stopped,
        beat: (done) => {
          // A page of deferred recipients sends again within what was walked already.
          const walked = Math.min(input.total ?? Infinity, input.walked + (input.seqs ? 0 : alreadyDone + done));
          const of = input.total === undefined ? 'while the audience is read' : `of ${input.total} recipients`;
          return controls.report(walked, input.total, { from: input.from, to: input.to, done }, `Sending: ${walked} ${of}`);
        },
        poll: async () => {
          if (!(await isStillSending(store, input))) stopped = true;
        },
      });
      if (tally.halted) throw launchNotActive(input);
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
    async giveUp(input: CampaignPageInput, reason: string, log?: SendLog): Promise<CampaignPageResult> {
      const work = await loadPage(input);
      const plan = await planFor(work.campaign, input.round);
      await recordUnsent(new LedgerWriter(store), work.pending.map((row) => plan.message(row)), { why: 'gave-up', reason });
      log?.warn('campaign recipients recorded as failed', { campaignId: input.campaignId, count: work.pending.length, reason });
      return { ...work.done, failed: work.done.failed + work.pending.length, deferred: [] };
    },
  };
}
