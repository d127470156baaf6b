// The activities of webhook delivery: a delivery pass of one endpoint, the one retry of a failed
// batch, and the sweep. The work itself is in core/webhooks; here it meets Temporal (heartbeats,
// cancellation, the worker's client for the sweeper's starts).
import { CancelledFailure, Context } from '@temporalio/activity';
import type { Store } from '../adapters/store/store';
import { DEFAULT_TUNING, deliveryPass, type WebhookTuning } from '../core/webhooks/delivery-pass';
import { createPoster } from '../core/webhooks/post';
import { runRetry } from '../core/webhooks/retries';
import { sweepWebhooks, type SweepResult } from '../core/webhooks/sweep';
import type { WebhookPassInput, WebhookPassResult, WebhookRetryInput } from '../adapters/temporal/contracts';

export interface WebhookActivityDeps {
  store: Store;
  /** HERALD_WEBHOOK_ALLOW_PRIVATE: connections to private addresses allowed. */
  webhookAllowPrivate?: boolean;
  /** Batching and polling of delivery (tests and benchmarks change them; the defaults suit production). */
  webhookTuning?: Partial<WebhookTuning>;
  /**
   * Aborted when the worker starts to stop: a pass ends as when its time is up (its cursor saved),
   * instead of polling on through the worker's grace period; the next worker goes on from there.
   */
  stopping?: AbortSignal;
}

/** Heartbeats on a timer too: a request may take up to its 10 s timeout. */
const HEARTBEAT_EVERY_MS = 2000;

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { store } = deps;
  const poster = createPoster({ allowPrivate: deps.webhookAllowPrivate ?? false });
  const tuning: WebhookTuning = { ...DEFAULT_TUNING, ...deps.webhookTuning };

  return {
    /** Delivers the endpoint's new events for up to `passMs`; see core/webhooks/delivery-pass.ts. */
    async deliverWebhookEvents(input: WebhookPassInput): Promise<WebhookPassResult> {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        const result = await deliveryPass({
          store, poster, tuning, heartbeat: () => context.heartbeat(), stopped: () => context.cancellationSignal.aborted || deps.stopping?.aborted === true,
        }, input);
        // Retries recorded before the cancel are in the store: the sweeper runs them.
        if (context.cancellationSignal.aborted) throw new CancelledFailure(`delivery pass stopped: ${String(context.cancellationSignal.reason ?? 'cancelled')}`);
        return result;
      } finally {
        clearInterval(beat);
      }
    },

    /** POSTs a failed batch once more, or discards it; `held` when the sweeper has it. */
    async retryWebhookBatch(input: WebhookRetryInput): Promise<string> {
      return runRetry({ store, poster }, input.account, input.endpointId, input.retryId);
    },

    /** Restarts delivery workflows, runs overdue retries, clears old limiter buckets and log entries. */
    async sweepWebhooks(): Promise<SweepResult> {
      const context = Context.current();
      return sweepWebhooks({ store, poster, client: context.client, taskQueue: context.info.taskQueue, heartbeat: () => context.heartbeat() });
    },
  };
}
