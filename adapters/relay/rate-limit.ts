// A rate limit in one process: a token bucket refilled at `ratePerSecond` that holds at most
// `burstSeconds` of it (at least one token). A relay's holds a twentieth of a second's worth, so
// sends are spread evenly rather than sent in bursts; a migration's source client a second's
// worth, so a few quick reads are not each kept waiting. Waiters are served in order. The rate can
// change while it runs: a process's share of a limit held across worker processes moves as processes come and go.

export class RateLimit {
  private tokens: number;
  private last: number;
  private readonly waiting: Array<() => void> = [];
  private timer?: NodeJS.Timeout;

  constructor(private ratePerSecond: number, private readonly now: () => number = () => performance.now(), private readonly burstSeconds = 1 / 20) {
    this.tokens = this.capacity;
    this.last = this.now();
  }

  private get capacity(): number {
    return Math.max(1, this.ratePerSecond * this.burstSeconds);
  }

  setRate(ratePerSecond: number): void {
    this.refill();
    this.ratePerSecond = ratePerSecond;
    this.tokens = Math.min(this.tokens, this.capacity);
    this.schedule();
  }

  /** Resolves when the message may go. */
  take(): Promise<void> {
    this.refill();
    if (this.waiting.length === 0 && this.tokens >= 1 && this.ratePerSecond > 0) {
      this.tokens -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Every waiter is let go (the relay closes). */
  close(): void {
    clearTimeout(this.timer);
    for (const release of this.waiting.splice(0)) release();
  }

  private refill(): void {
    const at = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((at - this.last) / 1000) * this.ratePerSecond);
    this.last = at;
  }

  private schedule(): void {
    // A rate of 0 (its share taken by other processes for now): nothing goes until setRate.
    if (this.timer || this.waiting.length === 0 || this.ratePerSecond <= 0) return;
    const wait = Math.max(1, Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refill();
      while (this.waiting.length > 0 && this.tokens >= 1) {
        this.tokens -= 1;
        this.waiting.shift()!();
      }
      this.schedule();
    }, wait);
  }
}
