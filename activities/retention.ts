// The retention activity: one pruning run over every account (core/retention/run.ts), started
// every hour by the retention schedule's workflow. It heartbeats after each page, with the last
// account it finished as its checkpoint, so a restarted attempt goes on from the next one (an
// account's unfinished page is finished first: core/retention/hold.ts). Its own time is bounded:
// it stops between pages once RUN_MS is spent, and the next run goes on.
import { Context } from '@temporalio/activity';
import type { Store } from '../adapters/store/store';
import { DEFAULT_PRUNE_TUNING, type PruneTuning } from '../core/retention/pages';
import { pruneAllAccounts, type PruneRunResult } from '../core/retention/run';

/** Within the workflow's hour (workflows/retention-sweep.ts), with room for a retry. */
const RUN_MS = 45 * 60_000;

export interface RetentionActivityDeps {
  store: Store;
  /** Page size and pause (tests make pauses short). */
  retentionTuning?: Partial<PruneTuning>;
}

interface Checkpoint { after?: string }

export function createRetentionActivities(deps: RetentionActivityDeps) {
  const tuning: PruneTuning = { ...DEFAULT_PRUNE_TUNING, ...deps.retentionTuning };
  return {
    /** Prunes every account's history older than its retention; see core/retention/. */
    async pruneHistory(): Promise<PruneRunResult> {
      const context = Context.current();
      const { workflowExecution: run, activityId } = context.info;
      const checkpoint: Checkpoint = { ...(context.info.heartbeatDetails as Checkpoint | undefined) };
      const deadline = Date.now() + RUN_MS;
      return pruneAllAccounts(deps.store, {
        // The same on every attempt: a retried attempt takes back the account its predecessor held.
        holder: `${run?.workflowId ?? 'retention'}/${run?.runId ?? ''}/${activityId}`,
        now: new Date(),
        tuning,
        after: checkpoint.after,
        controls: {
          progress: () => context.heartbeat(checkpoint),
          stopped: () => context.cancellationSignal.aborted || Date.now() > deadline,
        },
        done(account) {
          checkpoint.after = account;
          context.heartbeat(checkpoint);
        },
      });
    },
  };
}
