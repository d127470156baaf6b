import {
  condition, continueAsNew, defineSignal, log, proxyActivities, setHandler, workflowInfo,
} from '@temporalio/workflow';
import type { createSendActivities } from '../activities/sending';
import { RING_SIGNAL, type AccountSenderInput, type DrainResult } from '../adapters/temporal/contracts';
import { RELAY_TROUBLE_RETRY } from '../core/sending/deferral';
import { reasonGivenUp } from './send-policy';

type Activities = ReturnType<typeof createSendActivities>;

const ringSignal = defineSignal(RING_SIGNAL);

// A drain heartbeats every 2 s: 10 s without one means its worker is gone, and the retry (on a
// live worker) takes the queue again within about 10 s. Transient relay trouble is retried with
// backoff (RELAY_TROUBLE_RETRY: about a quarter of an hour); after that the requests that waited
// through it are recorded as failed. A drain returns within 10 minutes (core/transactional/drain.ts).
const { drainSendQueue } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '10 seconds',
  retry: RELAY_TROUBLE_RETRY,
});

const { giveUpSendQueue } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumInterval: '1 minute' },
});

/** With nothing to do for this long the run ends; the next ring starts a new one. */
const IDLE_MS = 5 * 60_000;
// A run continues as new well before Temporal's limits (51,200 events, 10,000 signals).
const MAX_HISTORY_EVENTS = 10_000;
const MAX_RINGS = 5_000;

/**
 * The account's sender. The API stores each accepted request in the account's send queue and
 * rings this workflow (signalWithStart) only when no drain of the queue is running; a ring
 * starts a drain (an activity that sends what the queue holds until it stays empty: see
 * core/transactional/drain.ts). A request the relay deferred waits in the queue, and a durable
 * timer here starts a drain when it falls due. Operators find a batch's run through the batches
 * API (each ledger row names the run that sent it), and the drain's progress in its heartbeats.
 */
export async function AccountSender(input: AccountSenderInput): Promise<void> {
  const { account } = input;
  let rung = input.rung ?? true;
  let nextDueAt = input.nextDueAt;
  let rings = 0;
  setHandler(ringSignal, () => {
    rung = true;
    rings += 1;
  });

  const mustContinue = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > MAX_HISTORY_EVENTS || rings > MAX_RINGS;

  for (;;) {
    if (rung || (nextDueAt !== undefined && nextDueAt <= Date.now())) {
      rung = false;
      const result = await drain(account);
      nextDueAt = result.nextDueAt;
      if (result.again) rung = true;
      if (mustContinue()) await continueAsNew<typeof AccountSender>({ account, rung, nextDueAt });
      continue;
    }
    const timeout = nextDueAt !== undefined ? Math.max(nextDueAt - Date.now(), 1) : IDLE_MS;
    const woken = await condition(() => rung, timeout);
    if (!woken && nextDueAt === undefined) return;
  }
}

/**
 * One drain of the account's queue. When its retries ran out, the requests accepted before it
 * began (they waited through all of them) are recorded as failed, and the next drain takes the
 * rest at once, with retries of its own.
 */
async function drain(account: string): Promise<DrainResult> {
  const began = Date.now();
  try {
    return await drainSendQueue({ account });
  } catch (error) {
    const reason = reasonGivenUp(error);
    log.warn('the drain gave up after retries; recording the requests that waited through them as failed', { account, reason });
    const given = await giveUpSendQueue({ account, acceptedBefore: began, reason });
    return { sent: given.sent, failed: given.failed, left: 0, again: true };
  }
}
