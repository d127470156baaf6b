import { condition, continueAsNew, isCancellation, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';
import type { PendingWebhookRetry, WebhookDeliveryInput, WebhookPassResult } from '../adapters/temporal/contracts';

type Activities = ReturnType<typeof createWebhookActivities>;

/** How long one pass reads and posts before it returns (then the next starts at once). */
const DEFAULT_PASS_MS = 60_000;
/** After a pass that found nothing, the next one starts after this (a durable timer). */
const IDLE_WAIT_MS = 1000;
/** Continue as new well before Temporal's 51,200 history events. */
const MAX_HISTORY_EVENTS = 10_000;

// A pass heartbeats every 2 s: 10 s without one means its worker is gone, and the retry (on a live
// worker) resumes from the stored cursor; a pass whose workflow is gone learns it from its next
// heartbeat and stops. Store trouble is retried for as long as it lasts.
const { deliverWebhookEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});
// One POST (at most 10 s) and a few store calls. When its attempts run out the batch stays in the
// store, and the sweeper runs it once its lease expires.
const { retryWebhookBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/**
 * The delivery of one webhook endpoint, for as long as it is enabled. Passes (activities) read the
 * account's stored events after the endpoint's cursor and POST them in batches; a batch whose
 * POST failed comes back from the pass as a retry, run once after one minute on a durable timer,
 * while the next passes go on with newer events. Ends when the endpoint is disabled or deleted
 * (retries still waiting are run at once: they discard themselves); continues as new, carrying
 * the retries it waits for, before its history grows large.
 */
export async function WebhookDelivery(input: WebhookDeliveryInput): Promise<void> {
  const { account, endpointId } = input;
  const passMs = input.passMs ?? DEFAULT_PASS_MS;
  const waiting: PendingWebhookRetry[] = [...(input.retries ?? [])];
  let retriesRunning = 0;
  let passRunning = false;
  let finished: WebhookPassResult | undefined;
  let crashed: unknown;
  let ended = false;
  let idleUntil = 0;

  const runRetry = (retry: PendingWebhookRetry) => {
    retriesRunning += 1;
    retryWebhookBatch({ account, endpointId, retryId: retry.retryId })
      .catch((error: unknown) => {
        if (isCancellation(error)) crashed ??= error;
        else log.warn('a webhook retry failed; the sweeper will run it', { account, endpointId, retryId: retry.retryId });
      })
      .finally(() => { retriesRunning -= 1; });
  };
  const startDue = (all: boolean) => {
    const now = Date.now();
    for (let i = waiting.length - 1; i >= 0; i -= 1) if (all || waiting[i].dueAt <= now) runRetry(waiting.splice(i, 1)[0]);
  };
  const mustContinue = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > MAX_HISTORY_EVENTS;

  for (;;) {
    if (crashed !== undefined) throw crashed;
    if (finished) {
      const now = Date.now();
      for (const retry of finished.retries) waiting.push({ retryId: retry.retryId, dueAt: now + retry.delayMs });
      if (finished.state === 'disabled' || finished.state === 'gone') ended = true;
      if (finished.state === 'idle') idleUntil = now + IDLE_WAIT_MS;
      finished = undefined;
    }
    startDue(ended);
    if (!passRunning && ended) {
      await condition(() => retriesRunning === 0);
      return;
    }
    if (!passRunning && mustContinue()) {
      await condition(() => retriesRunning === 0);
      await continueAsNew<typeof WebhookDelivery>({ account, endpointId, retries: waiting, passMs: input.passMs });
    }
    if (!passRunning && Date.now() >= idleUntil) {
      passRunning = true;
      deliverWebhookEvents({ account, endpointId, passMs }).then(
        (result) => { passRunning = false; finished = result; },
        (error: unknown) => { passRunning = false; crashed ??= error; },
      );
    }
    // Wakes when the pass returns, when the next retry is due, or when the idle wait is over.
    const wakeAt = Math.min(...waiting.map((r) => r.dueAt), passRunning ? Infinity : idleUntil);
    const woken = () => finished !== undefined || crashed !== undefined;
    if (Number.isFinite(wakeAt)) await condition(woken, Math.max(wakeAt - Date.now(), 1));
    else await condition(woken);
  }
}
