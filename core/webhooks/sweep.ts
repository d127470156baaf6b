// The webhook sweeper, run every minute by a Temporal Schedule (core/webhooks/lifecycle.ts): what
// makes "every event is eventually delivered or discarded" hold when a process crashed, a
// workflow was terminated, or a start was lost. It (1) starts the delivery workflow of every
// enabled endpoint that has none running (a running one is left alone), (2) runs retry batches
// overdue by more than 30 s that nobody holds (their workflow lost track of them), and (3) clears
// old rate-limit buckets, deliveries-log entries and discarded events older than 30 days, and
// late-event records older than a day, or than 10 minutes for an account without an enabled
// endpoint (./late-events.ts).
import type { Client } from '@temporalio/client';
import { startWebhookDelivery } from './lifecycle';
import { removeOldBuckets } from './rate-limit';
import { removeUnwantedLateRecords } from './late-events';
import { overdueRetries, runRetry, type RetryDeps } from './retries';

/** A retry this late was lost by its workflow (its own timer fires at the due time). */
const RETRY_GRACE_MS = 30_000;
/** Retries one sweep runs at most; the rest wait for the next. */
const RETRIES_PER_SWEEP = 200;
const CONCURRENCY = 8;
export const LOG_KEEP_DAYS = 30;

export interface SweepDeps extends RetryDeps { client: Client; taskQueue: string; heartbeat(): void }

export interface SweepResult { endpoints: number; startFailures: number; retries: number; buckets: number; logEntries: number }

async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

export async function sweepWebhooks(deps: SweepDeps): Promise<SweepResult> {
  const { store } = deps;
  const enabled = await store.webhooks.find({ enabled: true }).project<{ account: string; id: number }>({ account: 1, id: 1 }).toArray();
  let startFailures = 0;
  await eachLimited(enabled, CONCURRENCY, async ({ account, id }) => {
    try {
      await startWebhookDelivery(deps.client, deps.taskQueue, account, id);
    } catch {
      startFailures += 1; // the next sweep tries again
    }
    deps.heartbeat();
  });
  const overdue = await overdueRetries(store, RETRY_GRACE_MS, RETRIES_PER_SWEEP);
  await eachLimited(overdue, CONCURRENCY, async (retry) => {
    await runRetry(deps, retry.account, retry.endpointId, retry._id);
    deps.heartbeat();
  });
  const buckets = await removeOldBuckets(store);
  const keepFrom = new Date(Date.now() - LOG_KEEP_DAYS * 86_400_000);
  const [{ deletedCount }] = await Promise.all([
    store.webhookLog.deleteMany({ at: { $lt: keepFrom } }),
    store.webhookDiscards.deleteMany({ discarded: { $lt: keepFrom } }),
    removeUnwantedLateRecords(store, [...new Set(enabled.map((e) => e.account))]),
  ]);
  return { endpoints: enabled.length, startFailures, retries: overdue.length, buckets, logEntries: deletedCount };
}
