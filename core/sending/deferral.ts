// The one deferral policy of every sender (transactional requests, campaign pages, automation
// emails). A recipient the relay defers (4xx) gets no ledger row and is sent again after a
// backoff, without holding the others; after `sends` sends it is given up (core/sending/give-up.ts
// records its soft bounce). The relay's own trouble (connection, authentication) fails the whole
// attempt instead, which Temporal retries on RELAY_TROUBLE_RETRY before the unsent messages are
// given up. Pure definitions, no I/O: the send workflows import this file (the one core/ file
// their sandbox allows besides the Temporal contracts).

export interface DeferralPolicy {
  /** Sends of a deferred message before it is given up. */
  sends: number;
  /** The wait before the second send; it doubles for each later one. */
  firstDelayMs: number;
  /** The longest wait between two sends. */
  maxDelayMs: number;
}

/** 1 s, 2 s, 4 s … at most 5 minutes apart, 10 sends (about 8.5 minutes in all). */
export const DEFERRAL: DeferralPolicy = { sends: 10, firstDelayMs: 1000, maxDelayMs: 300_000 };

/** Why a message given up after its deferrals was not sent (its soft bounce says so). */
export const KEPT_DEFERRING = 'the relay kept deferring the recipient';

/**
 * After a message's `sends`th send was deferred: the wait before its next send, or null when it
 * is given up. `policy`: what differs from DEFERRAL (tests make the waits short).
 */
export function delayBeforeNextSend(sends: number, policy: Partial<DeferralPolicy> = {}): number | null {
  const { sends: most, firstDelayMs, maxDelayMs } = { ...DEFERRAL, ...policy };
  if (sends >= most) return null;
  return Math.min(firstDelayMs * 2 ** (sends - 1), maxDelayMs);
}

/**
 * How Temporal retries a send attempt that the relay's trouble failed: 1 s doubling to 5
 * minutes, 10 attempts (about a quarter of an hour); then the attempt's unsent messages are given up.
 */
export const RELAY_TROUBLE_RETRY = {
  initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10,
} as const;
