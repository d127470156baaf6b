// The deferral policy (core/sending/deferral.ts) applied to one thing sent alone: a scheduled
// request, an automation's email. Workflows that send many (AccountSender, CampaignLaunch) keep
// their deferred sends in their state instead, and ask the same policy for each.
import { sleep } from '@temporalio/workflow';
import { delayBeforeNextSend, type DeferralPolicy } from '../core/sending/deferral';

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
