// The send queues' sweeper, run every minute by a Temporal Schedule: what makes "an accepted
// request is sent" hold when no sender would otherwise come for it. The API rings a sender for
// every request it queues unless one is draining, so a request waits unattended only when an API
// process died between storing its entry and ringing (the client got no answer, but the request
// is stored), or when a sender's retries were given up while later requests waited. The sweep
// rings the sender of every account with a request ready for longer than a minute; a ring that
// finds a sender at work costs nothing.
import type { Store } from '../../adapters/store/store';
import { ringAccountSender, type SignalDeps } from '../../adapters/temporal/client';
import type { SendQueueSweepResult } from '../../adapters/temporal/contracts';
import { accountsWaitingSince } from './send-queue';

/** A request queued this long ago, ready and still there, may be unattended. */
export const UNATTENDED_AFTER_MS = 60_000;

export async function sweepSendQueues(deps: SignalDeps & { store: Store; heartbeat(): void }, now = new Date()): Promise<SendQueueSweepResult> {
  const accounts = await accountsWaitingSince(deps.store, new Date(now.getTime() - UNATTENDED_AFTER_MS), now);
  let failures = 0;
  for (const account of accounts) {
    try {
      await ringAccountSender(deps, account);
    } catch {
      failures += 1; // the next sweep rings it again
    }
    deps.heartbeat();
  }
  return { rung: accounts.length - failures, failures };
}
