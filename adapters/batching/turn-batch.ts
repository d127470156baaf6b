// Work that requests arriving together share. Under load the API handles bursts of requests in
// one turn of the event loop; what each of them asks of the store during that turn waits for
// the turn's end (setImmediate) and goes out as one store call for all of them, so a burst of
// twenty requests makes one round trip instead of twenty. Round trips are what the API's CPU goes
// to: measured on the 2-core bench machine, socket writes and the driver's work per command took
// about 40% of the API thread. A lone request waits for no one.
//
// Each call starts after every request it serves has arrived, so each request still sees every
// write acknowledged before it arrived.

import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import type { Store } from '../store/store';
import { refusedStatements } from '../store/bulk-writes';
import { perStore } from '../store/per-store';

/** What the batch's work gives each item: its value, or the error that item alone met. */
export type ItemResult<R> = { value: R } | { error: unknown };

interface Waiter<R> { resolve: (value: R) => void; reject: (error: unknown) => void }

/** At most this many items in one call; a fuller batch goes out at once. */
export const MAX_BATCH = 500;

export class TurnBatch<T, R> {
  private items: T[] = [];
  private waiters: Array<Waiter<R>> = [];
  private scheduled = false;

  /**
   * @param run does the work of a batch: one result per item, in order (or throws, failing them all).
   *   Called synchronously when the batch goes out.
   */
  constructor(private readonly run: (items: T[]) => Promise<Array<ItemResult<R>>>) {}

  /** How many items wait for the next call. */
  get waiting(): number {
    return this.items.length;
  }

  /** The item's result, from the call made at the end of this turn. */
  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (this.items.length >= MAX_BATCH) this.dispatch();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.dispatch());
      }
    });
  }

  private dispatch(): void {
    this.scheduled = false;
    if (this.items.length === 0) return;
    const [items, waiters] = [this.items, this.waiters];
    this.items = [];
    this.waiters = [];
    let results: Promise<Array<ItemResult<R>>>;
    try {
      results = this.run(items);
    } catch (error) {
      results = Promise.reject(error);
    }
    results.then(
      (answers) => waiters.forEach((w, i) => {
        const answer = answers[i];
        if (answer && 'value' in answer) w.resolve(answer.value);
        else w.reject(answer ? answer.error : new Error('the batch gave no result for this item'));
      }),
      (error: unknown) => { for (const w of waiters) w.reject(error); },
    );
  }
}

/**
 * Inserts arriving in the same turn, made one `insertMany` (unordered): one store round trip and
 * one commit for all of them. A document whose own insert failed (a duplicate key) gets its error;
 * when the command itself failed, every document of it does.
 */
export function insertsPerTurn<T extends Document>(collectionOf: (store: Store) => Collection<T>): (store: Store) => TurnBatch<OptionalUnlessRequiredId<T>, void> {
  return perStore((store) => new TurnBatch<OptionalUnlessRequiredId<T>, void>(async (docs) => {
    try {
      await collectionOf(store).insertMany(docs, { ordered: false });
      return docs.map(() => ({ value: undefined }));
    } catch (error) {
      const refused = refusedStatements(error); // or throws: the command failed, and every document with it
      return docs.map((_, index) => (refused.has(index) ? { error: refused.get(index) } : { value: undefined }));
    }
  }));
}
