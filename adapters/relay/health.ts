// Whether a relay is up, as the router (./router.ts) learns it from its connections. A relay that
// refuses the connection, fails TLS or AUTH, times out or answers 421 is down for a while (10 s,
// doubling while it keeps failing, at most 5 minutes); then one message at a time tries it again
// (a probe), and the first one it takes brings it back up. Each worker process learns it for itself.

export interface DownTimes {
  /** How long a relay stays down after it failed while up. */
  firstDownMs: number;
  /** The longest, doubling from the first while it keeps failing. */
  maxDownMs: number;
}

export const DOWN_TIMES: DownTimes = { firstDownMs: 10_000, maxDownMs: 300_000 };

export class RelayHealth {
  private downUntil = 0;
  private downFor = 0;
  private probing = false;

  constructor(private readonly times: DownTimes = DOWN_TIMES, private readonly now: () => number = Date.now) {}

  get up(): boolean {
    return this.downFor === 0;
  }

  /** True: this message may go to the relay (it is up, or down and due for a probe, which this message then is). */
  admit(): boolean {
    if (this.up) return true;
    if (this.probing || this.now() < this.downUntil) return false;
    this.probing = true;
    return true;
  }

  /** The relay took a message (or answered about its recipient): up. True when it was down until now. */
  succeeded(): boolean {
    this.probing = false;
    if (this.up) return false;
    this.downFor = 0;
    this.downUntil = 0;
    return true;
  }

  /** The relay itself failed: down, for longer each time in a row. True when it was up until now. */
  failed(): boolean {
    this.probing = false;
    const wasUp = this.up;
    // Failures of messages that were in flight when it went down do not lengthen the wait.
    if (!wasUp && this.now() < this.downUntil) return false;
    this.downFor = wasUp ? this.times.firstDownMs : Math.min(this.downFor * 2, this.times.maxDownMs);
    this.downUntil = this.now() + this.downFor;
    return wasUp;
  }
}
