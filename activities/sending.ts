// The activities of transactional requests: the AccountSender's drain of the account's send queue
// (core/transactional/drain.ts), the give-up when its retries ran out, the sweep that rings
// unattended queues, and the ScheduledSend's one request (core/transactional/send-requests.ts).
// Thin adapters: the work is in core/transactional.
import { Context } from '@temporalio/activity';
import { createQueueDrain, DRAIN_TUNING, type DrainTuning } from '../core/transactional/drain';
import { createQueueGiveUp } from '../core/transactional/queue-give-up';
import { sweepSendQueues } from '../core/transactional/queue-sweep';
import { createRequestSender } from '../core/transactional/send-requests';
import type {
  DrainInput, DrainResult, QueueGiveUpInput, SendOutcome, SendQueueSweepResult, SendRequestsInput,
} from '../adapters/temporal/contracts';
import { asActivity, engineDeps, sendControls, type SendDeps } from './adapter';
import { SendQueueBacklog } from './send-metrics';

export type { SendDeps };

export interface SendActivityDeps extends SendDeps {
  /** How drains page through their queue; tests make them stop sooner. */
  drainTuning?: Partial<DrainTuning>;
  /** Aborted when the worker starts to stop: a drain hands its queue on instead of waiting out its idle time. */
  stopping?: AbortSignal;
}

export function createSendActivities(deps: SendActivityDeps) {
  const engine = engineDeps(deps);
  const requests = createRequestSender(engine);
  const drain = createQueueDrain(engine, { ...DRAIN_TUNING, ...deps.drainTuning });
  const giveUpQueued = createQueueGiveUp(engine);
  const backlog = new SendQueueBacklog();
  return {
    /**
     * Drains the account's send queue until it stays empty; heartbeats every 2 s. Relay trouble
     * fails it (retried: the retry resumes from the ledger); a cancellation stops it before the
     * next message.
     */
    drainSendQueue(input: DrainInput): Promise<DrainResult> {
      const run = Context.current().info.workflowExecution;
      return asActivity(() => drain(input.account, {
        ...sendControls(), ...(run ? { sentBy: { workflowId: run.workflowId, runId: run.runId } } : {}),
        backlog: (entries) => backlog.set(input.account, entries),
        ...(deps.stopping ? { stopping: deps.stopping } : {}),
      }));
    },

    /** After a drain's retries ran out: the requests that waited through them get their unsent messages recorded as failed. */
    giveUpSendQueue(input: QueueGiveUpInput): Promise<SendOutcome> {
      return giveUpQueued(input.account, new Date(input.acceptedBefore), input.reason, Context.current().log);
    },

    /** Rings the sender of every account whose queue has waited unattended (the sweeper's Schedule, every minute). */
    sweepSendQueues(): Promise<SendQueueSweepResult> {
      const context = Context.current();
      return sweepSendQueues({ store: deps.store, temporal: context.client, taskQueue: context.info.taskQueue, heartbeat: () => context.heartbeat() });
    },

    /**
     * Sends the requests' messages the ledger does not show as done (a scheduled request, at its
     * launch_date); `deferred`: requests with recipients the relay deferred. Relay trouble fails
     * the attempt (retried); a cancellation stops it before its next message.
     */
    sendRequests(input: SendRequestsInput): Promise<SendOutcome> {
      return asActivity(() => requests.send(input, sendControls()));
    },

    /** After retries ran out: every unsent message gets a soft bounce event, so none is silently lost. */
    recordUnsentAsFailed(input: SendRequestsInput & { reason: string }): Promise<SendOutcome> {
      return requests.giveUp(input, input.reason, Context.current().log);
    },

    /** Requests cancelled before they were sent: every unsent message is dropped (an event each), none is sent. */
    recordCancelled(input: SendRequestsInput): Promise<SendOutcome> {
      return requests.cancel(input, Context.current().log);
    },
  };
}
