// Transactional mail ahead of bulk mail in one worker process. A drain's page of single sends and a
// campaign's pages share the worker's one thread: rendering takes a turn each (../shared/next-turn.ts),
// and with a campaign's 50 messages per page waiting for theirs, a single send's work waits behind
// them. While urgent work runs, a bulk message waits before it renders, for at most `maxWaitMs`
// (HERALD_CAMPAIGN_YIELD_MS), so a steady stream of single sends slows a campaign but never stops
// it. Measured in docs/benchmarks.md (transactional-latency): it trades campaign rate for latency.

export class SendPriority {
  private urgentRunning = 0;
  private readonly waiting = new Set<() => void>();

  /** `maxWaitMs` 0: bulk work never waits. */
  constructor(private readonly maxWaitMs: number) {}

  /** Runs urgent work (a drain's page); bulk turns wait while any runs. */
  async urgent<T>(work: Promise<T>): Promise<T> {
    this.urgentRunning += 1;
    try {
      return await work;
    } finally {
      this.urgentRunning -= 1;
      if (this.urgentRunning === 0) for (const release of [...this.waiting]) release();
    }
  }

  /** Resolves at once when no urgent work runs; else once none runs, or after maxWaitMs. */
  bulkTurn(): Promise<void> {
    if (this.urgentRunning === 0 || this.maxWaitMs === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const release = () => {
        clearTimeout(timer);
        this.waiting.delete(release);
        resolve();
      };
      const timer = setTimeout(release, this.maxWaitMs);
      this.waiting.add(release);
    });
  }
}
