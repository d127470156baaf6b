// When an idle delivery pass should read again. On the embedded store every read of events is a
// scan of the whole collection (DESIGN.md: only equality on _id and unique keys uses an index),
// about 1.2 µs per stored event: polling each endpoint every second would keep the store busy
// with nothing to find. The collection's count (estimatedDocumentCount: its metadata, ~1 ms)
// changes whenever events are stored, so an idle pass asks for it instead, and reads only once
// the events counted at a change have settled (settle window + 1 s, _ids being to the second) —
// and at least every 30 s whatever the count says (a delete and an insert could cancel out).
import type { Store } from '../../adapters/store/store';

const FULL_READ_EVERY_MS = 30_000;

export class NewEventsWatch {
  private seen: number | undefined;
  /** When reads are due for the count changes seen (ascending). */
  private dues: number[] = [];
  private lastRead = 0;

  constructor(private readonly store: Store, private readonly settleMs: number) {}

  private count(): Promise<number> {
    return this.store.events.estimatedDocumentCount();
  }

  /** Call just before each read: the read covers every change whose events had settled by now. */
  async reading(now = Date.now()): Promise<void> {
    if (this.seen === undefined) {
      this.seen = await this.count();
      // That count may include events too young for this read (stored just before the pass
      // started): read again once they settled, not only at the next full read.
      this.dues.push(now + this.settleMs + 1000);
    }
    this.lastRead = now;
    this.dues = this.dues.filter((due) => due > now);
  }

  /** Whether a read now may find events the last one could not. */
  async readDue(now = Date.now()): Promise<boolean> {
    const count = await this.count();
    if (count !== this.seen) {
      this.seen = count;
      this.dues.push(now + this.settleMs + 1000);
    }
    return (this.dues.length > 0 && now >= this.dues[0]) || now - this.lastRead >= FULL_READ_EVERY_MS;
  }
}
