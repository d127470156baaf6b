import {
  ActivityCancellationType, ActivityFailure, ApplicationFailure, CancellationScope, condition, continueAsNew, defineSignal, isCancellation,
  patched, proxyActivities, setHandler, sleep, workflowInfo,
} from '@temporalio/workflow';
import type { createCampaignActivities } from '../activities/campaigns';
import {
  CAMPAIGN_PAUSE_SIGNAL, CAMPAIGN_RESUME_SIGNAL,
  type CampaignLaunchInput, type CampaignLaunchState, type CampaignPageInput, type CampaignPageResult, type TaskWorkflowInput,
} from '../adapters/temporal/contracts';
import { delayBeforeNextSend, KEPT_DEFERRING, RELAY_TROUBLE_RETRY } from '../core/sending/deferral';
import { reasonGivenUp } from './send-policy';
import { runTask } from './task-run';

type Activities = ReturnType<typeof createCampaignActivities>;

const { prepareCampaignLaunch, finishCampaign, settleCampaignLaunch, recordCampaignPageFailed, noteCampaignPaused, findResendCandidates } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumInterval: '30 seconds' },
});
// The snapshot streams the whole audience once, heartbeating per part; a retry keeps the full parts.
const { startCampaignSending, takeCampaignSnapshot } = proxyActivities<Activities>({
  startToCloseTimeout: '4 hours',
  heartbeatTimeout: '1 minute',
  retry: { maximumInterval: '1 minute', maximumAttempts: 5 },
});
// As transactional sends (workflows/send-attempts.ts): relay trouble is retried with backoff
// (RELAY_TROUBLE_RETRY), then the page's unsent messages are recorded as failed. A page
// heartbeats every 2 s: 10 s without one means its worker is gone, and the retry resumes from
// the ledger. A cancelled workflow waits for its page to stop (it does within a second).
const { sendCampaignPage } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '10 seconds',
  retry: RELAY_TROUBLE_RETRY,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

const pauseSignal = defineSignal(CAMPAIGN_PAUSE_SIGNAL);
const resumeSignal = defineSignal(CAMPAIGN_RESUME_SIGNAL);

/** Deferred recipients waiting for their next send: past this many, no new page starts until they drain (the carried state stays small). */
const MAX_DEFERRED_WAITING = 5000;
/**
 * Resend rounds walk in strides (findResendCandidates) since 2026-11-29; a round begun before walks
 * page by page to its end (its history has no marker), which sends to the same recipients.
 */
const RESEND_IN_STRIDES = 'resend-in-strides';

/** A run continues as new well before Temporal's 51,200-event history limit. */
const MAX_HISTORY_EVENTS = 10_000;

/** The task's end, decided by an activity: not a failure to record as failed recipients. */
const endsTheTask = (error: ActivityFailure) => error.cause instanceof ApplicationFailure
  && (error.cause.type === 'TaskNotActive' || error.cause.type === 'TaskInputError');

/**
 * Tasks CAMPAIGN_LAUNCH and CAMPAIGN_RESEND. A launch waits for its launchDate in a durable
 * timer (SCHEDULED), then goes SENDING, snapshots its audience and sends it in pages (the first
 * pages while the snapshot's later parts are still being written), checkpointed
 * in the workflow's state and continued as new every few hundred pages, so a million recipients
 * are fine; then SENT with its recipients. A resend round walks the snapshot in strides for the
 * recipients whose latest message failed (core/campaigns/resend.ts) and sends them in pages. Pause and resume are signals (a pause lets the page in flight finish); a cancelled
 * launch (its task, its campaign, or the workflow itself) leaves the campaign CANCELLED, unless
 * it was stopped back to DRAFT.
 */
export async function CampaignLaunch(input: CampaignLaunchInput): Promise<void> {
  const task: TaskWorkflowInput = { account: input.account, taskId: input.taskId };
  let paused = input.carried?.paused ?? false;
  setHandler(pauseSignal, () => { paused = true; });
  setHandler(resumeSignal, () => { paused = false; });

  async function launch(): Promise<{ message: string; result: unknown }> {
    let state = input.carried;
    if (!state) {
      const start = await prepareCampaignLaunch(task);
      const wait = start.launchAt - Date.now();
      if (wait > 0) await sleep(wait);
      await condition(() => !paused);
      const taken = await startCampaignSending({ ...task, campaignId: start.campaignId, round: start.round });
      state = { ...start, total: taken ?? undefined, next: 0, counts: { sent: 0, failed: 0, dropped: 0 }, deferred: [], paused };
    }
    // A run continues as new only once the snapshot is taken: a carried state knows its total.
    const current = state;
    const snapshot = current.total !== undefined ? undefined
      : takeCampaignSnapshot({ ...task, campaignId: current.campaignId, round: current.round }).then((total) => { current.total = total; });
    await sendPages(current, snapshot);
    const { campaignId, round, total, counts } = current;
    return finishCampaign({ ...task, campaignId, round, total: total!, counts });
  }

  /**
   * Every page of the snapshot from state.next, and the deferred recipients until none is left.
   * While `snapshot` is being taken (state.total undefined), pages go on past what is written: each
   * waits for its part.
   */
  async function sendPages(state: CampaignLaunchState, snapshot?: Promise<void>): Promise<void> {
    const { tuning, campaignId, round } = state;
    /** The one deferral policy, with the worker's tuning (tests make its waits short). */
    const deferral = { sends: tuning.deferredSends, firstDelayMs: tuning.deferredFirstDelayMs };
    let inFlight = 0;
    let finished = 0;
    let pagesThisRun = 0;
    let crashed: unknown;
    /** The snapshot could not be taken: pages waiting for its parts would wait for ever, so the launch fails at once. */
    let snapshotFailed: unknown;
    void snapshot?.catch((error: unknown) => { snapshotFailed = error; });
    /** The snapshot is taken (its promise set state.total). */
    const snapshotTaken = () => state.total !== undefined;
    /** The task says it is paused once the pages in flight ended. */
    let pauseNoted = false;
    const pageOf = (from: number, to: number, seqs?: number[]): CampaignPageInput => ({
      ...task, campaignId, round, from, to, seqs, total: state.total, walked: state.next,
    });
    const add = (result: CampaignPageResult) => {
      state.counts.sent += result.sent;
      state.counts.failed += result.failed;
      state.counts.dropped += result.dropped;
    };

    const runPage = async (page: CampaignPageInput, sends: Map<number, number>) => {
      let result: CampaignPageResult;
      try {
        result = await sendCampaignPage(page);
      } catch (error) {
        result = await recordCampaignPageFailed({ ...page, reason: reasonGivenUp(error, endsTheTask) });
      }
      add(result);
      const gaveUp: number[] = [];
      for (const seq of result.deferred) {
        const count = (sends.get(seq) ?? 0) + 1;
        const delay = delayBeforeNextSend(count, deferral);
        if (delay === null) gaveUp.push(seq);
        else state.deferred.push({ seq, sends: count, dueAt: Date.now() + delay });
      }
      if (gaveUp.length > 0) add(await recordCampaignPageFailed({ ...pageOf(0, 0, gaveUp), reason: KEPT_DEFERRING }));
    };
    const start = (page: CampaignPageInput, sends = new Map<number, number>()) => {
      inFlight += 1;
      pagesThisRun += 1;
      void runPage(page, sends).catch((error: unknown) => { crashed ??= error; }).finally(() => { inFlight -= 1; finished += 1; });
    };

    const mustContinue = () => snapshotTaken() && (pagesThisRun >= tuning.pagesPerRun || workflowInfo().continueAsNewSuggested
      || workflowInfo().historyLength > MAX_HISTORY_EVENTS);
    const moreToWalk = () => (state.total === undefined || state.next < state.total) && state.deferred.length < MAX_DEFERRED_WAITING;
    const dueNow = () => state.deferred.some((d) => d.dueAt <= Date.now());
    const canStart = () => !paused && inFlight < tuning.pagesInFlight && (dueNow() || moreToWalk());

    for (;;) {
      if (snapshotFailed !== undefined) throw snapshotFailed;
      if (crashed !== undefined) {
        await condition(() => inFlight === 0); // the pages in flight end first (they stop on their own)
        throw crashed;
      }
      if (inFlight === 0 && state.total !== undefined && state.next >= state.total && state.deferred.length === 0) return;
      if (mustContinue()) {
        await condition(() => inFlight === 0);
        if (crashed === undefined) await continueAsNew<typeof CampaignLaunch>({ ...task, carried: { ...state, paused } });
        continue;
      }
      if (canStart()) {
        if (dueNow()) {
          // Deferred recipients whose time came, before the walk goes on.
          const due = state.deferred.filter((d) => d.dueAt <= Date.now()).slice(0, tuning.pageSize);
          const taken = new Set(due.map((d) => d.seq));
          state.deferred = state.deferred.filter((d) => !taken.has(d.seq));
          start(pageOf(0, 0, due.map((d) => d.seq)), new Map(due.map((d) => [d.seq, d.sends])));
        } else if (round > 0 && state.total !== undefined && patched(RESEND_IN_STRIDES)) {
          // A resend walks the snapshot in strides and sends pages of the recipients it finds.
          const found = await findResendCandidates({ ...task, campaignId, round, from: state.next, total: state.total, want: tuning.pageSize });
          state.next = found.next;
          if (found.seqs.length > 0) start(pageOf(0, 0, found.seqs));
        } else {
          const from = state.next;
          const to = Math.min(from + tuning.pageSize, state.total ?? Infinity);
          start(pageOf(from, to));
          state.next = to;
        }
        continue;
      }
      if (!paused) pauseNoted = false;
      else if (inFlight === 0 && !pauseNoted) {
        pauseNoted = true;
        await noteCampaignPaused({ ...task, campaignId, round, walked: state.next, total: state.total });
        continue;
      }
      // Wait for a page to end, a resume, or the next deferred recipient's time.
      const nextDue = Math.min(...state.deferred.map((d) => d.dueAt));
      const seen = finished;
      const taken = snapshotTaken();
      const woken = () => crashed !== undefined || snapshotFailed !== undefined || finished !== seen || snapshotTaken() !== taken || canStart();
      if (Number.isFinite(nextDue)) await condition(woken, Math.max(nextDue - Date.now(), 1));
      else await condition(woken);
    }
  }

  try {
    await runTask(task, launch, { begun: input.carried !== undefined });
  } catch (error) {
    // Cancelled (its task, or in the Temporal UI): the campaign and the task say so, whatever happens to this scope.
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => settleCampaignLaunch(task));
    throw error;
  }
  // Cancelled or stopped before sending, or failed: a campaign still launched by this task is CANCELLED.
  await settleCampaignLaunch(task);
}
