// Writes grouped while one is in flight: items queue while the store answers a write, and the
// next write takes all of them; the first waits one turn of the event loop, so what arrives in
// that turn joins it. A burst makes one round trip instead of one each, and an item waits at most
// one write before its own starts (the send ledger: core/sending/ledger.ts; tracking hits'
// events: core/tracking/event-writer.ts).

interface Waiter { resolve: () => void; reject: (error: unknown) => void }

export class WriteQueue<T> {
  private items: T[] = [];
  private waiters: Waiter[] = [];
  private writing: Promise<void> | undefined;

  /** @param write stores a group of items (throws: every item of the group fails). */
  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  /** Resolves once the items are written. */
  add(items: T[]): Promise<void> {
    if (items.length === 0) return Promise.resolve(); // nothing to wait for (a write would never come)
    return new Promise((resolve, reject) => {
      this.items.push(...items);
      this.waiters.push({ resolve, reject });
      this.writing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.items.length > 0) {
      const [items, waiters] = [this.items, this.waiters];
      this.items = [];
      this.waiters = [];
      try {
        await this.write(items);
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error);
      }
    }
    this.writing = undefined;
  }
}
