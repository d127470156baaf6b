// Failed SMTP logins counted per client address, across its connections: a guessed key is slowed
// down, then refused for a while. A connection cannot reset the count by reconnecting, and one
// address's failures never slow another's logins. Kept in memory per listener process (each
// process of a deployment counts its own), bounded in size.

export interface AuthThrottleOptions {
  /** Failures an address may have before its next answers are delayed. */
  freeFailures: number;
  /** Each failure past the free ones adds this much to the answer's delay, up to maxDelayMs. */
  delayStepMs: number;
  maxDelayMs: number;
  /** Failures after which the address is refused outright until lockMs has passed. */
  lockAfter: number;
  lockMs: number;
  /** Failures older than this are forgotten. */
  windowMs: number;
  /** Addresses remembered at most (the oldest are forgotten first). */
  maxAddresses: number;
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottleOptions = {
  freeFailures: 3, delayStepMs: 1000, maxDelayMs: 5000, lockAfter: 10, lockMs: 15 * 60_000, windowMs: 15 * 60_000, maxAddresses: 10_000,
};

interface Record { failures: number; first: number; lockedUntil: number }

export class AuthThrottle {
  private readonly byAddress = new Map<string, Record>();

  constructor(private readonly options: AuthThrottleOptions = DEFAULT_AUTH_THROTTLE, private readonly now = () => Date.now()) {}

  /** Whether the address is refused for now (too many failures), and until when. */
  lockedUntil(address: string): number | undefined {
    const record = this.current(address);
    return record && record.lockedUntil > this.now() ? record.lockedUntil : undefined;
  }

  /** How long to hold the answer to this address's next login attempt. */
  delayFor(address: string): number {
    const failures = this.current(address)?.failures ?? 0;
    const excess = failures - this.options.freeFailures;
    return excess > 0 ? Math.min(this.options.maxDelayMs, excess * this.options.delayStepMs) : 0;
  }

  failed(address: string): void {
    const now = this.now();
    const record = this.current(address) ?? { failures: 0, first: now, lockedUntil: 0 };
    record.failures += 1;
    if (record.failures >= this.options.lockAfter) record.lockedUntil = now + this.options.lockMs;
    this.byAddress.delete(address); // re-inserted last: Map order is the eviction order
    this.byAddress.set(address, record);
    if (this.byAddress.size > this.options.maxAddresses) this.byAddress.delete(this.byAddress.keys().next().value as string);
  }

  succeeded(address: string): void {
    this.byAddress.delete(address);
  }

  private current(address: string): Record | undefined {
    const record = this.byAddress.get(address);
    if (!record) return undefined;
    const now = this.now();
    if (record.lockedUntil <= now && now - record.first > this.options.windowMs) {
      this.byAddress.delete(address);
      return undefined;
    }
    return record;
  }
}
