// The send policy as every send workflow applies it: why a send activity gave up (its retries ran
// out), and the deferral policy (core/sending/deferral.ts) for one thing sent alone (a scheduled
// request, an automation's email). Workflows that send many (AccountSender, CampaignLaunch) keep
// their deferred sends in their state instead, and ask the same policy for each.
import { ActivityFailure, isCancellation, sleep } from '@temporalio/workflow';
import { delayBeforeNextSend, type DeferralPolicy } from '../core/sending/deferral';

/**
 * The reason a send activity gave up (its retries ran out, or it failed in a way no retry helps),
 * which its unsent messages are recorded failed with. Anything else is thrown on: a cancellation,
 * a failure `endsWork` says ends the work instead (a campaign no longer this task's), a bug.
 */
export function reasonGivenUp(error: unknown, endsWork: (failure: ActivityFailure) => boolean = () => false): string {
  if (!(error instanceof ActivityFailure) || isCancellation(error) || endsWork(error)) throw error;
  return error.cause?.message ?? error.message;
}

/**
 * Sends (`send`) until the relay no longer defers it (`deferred` of the send's result), waiting
 * the policy's delay between sends in a durable timer. Returns the last send's result, and
 * whether the policy gave up on it (the caller records that: a soft bounce, KEPT_DEFERRING).
 */
export async function sendWhileDeferred<T>(
  send: () => Promise<T>, deferred: (result: T) => boolean, policy?: Partial<DeferralPolicy>,
): Promise<{ last: T; gaveUp: boolean }> {
  for (let sends = 1; ; sends += 1) {
    const last = await send();
    if (!deferred(last)) return { last, gaveUp: false };
    const delay = delayBeforeNextSend(sends, policy);
    if (delay === null) return { last, gaveUp: true };
    await sleep(delay);
  }
}
