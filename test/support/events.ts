import type { EventDoc, Store } from '../../adapters/store/store';

/** The account's events of a batch, once at least `count` have been recorded (else throws after 30 s). */
export async function batchEvents(store: Store, account: string, batchId: string, count: number): Promise<EventDoc[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = await store.events.find({ account, batch_id: batchId }).toArray();
    if (events.length >= count) return events;
    if (Date.now() > deadline) throw new Error(`expected ${count} events for ${batchId}, got ${events.length}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
