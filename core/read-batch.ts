// Lookups that requests arriving together share. Under load the API handles bursts of requests
// in one turn of the event loop; each asks for the same few documents (the API key, its user,
// the list, the account's custom fields). A lookup asked for during a turn waits for the end of
// that turn (setImmediate) and goes out as one query with every key asked for meanwhile, so a
// burst of twenty requests makes one store round trip per lookup instead of twenty. Round trips
// are what the API's CPU goes to: measured on the 2-core bench machine, with five per contact
// upsert the API thread spent about half its time sending and decoding them.
//
// Not a cache: nothing outlives its query, and each query starts after every request it serves
// has arrived, so each request still sees every write acknowledged before it arrived (a revoked
// key or a deleted user fails at once, in every process). A lone request waits for no one.
import type { Store } from './store';

interface Waiter<V> { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }

/** At most this many keys in one query; a fuller batch goes out at once. */
const MAX_KEYS = 500;

export class ReadBatch<K, V> {
  private queued = new Map<K, Array<Waiter<V>>>();
  private scheduled = false;

  /** @param load reads the values of the keys (one query); keys it leaves out resolve to undefined */
  constructor(private readonly load: (keys: K[]) => Promise<Map<K, V>>) {}

  /** The value of key as read by the next query. Shared with the other requests of the batch: do not change it. */
  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.queued.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.queued.set(key, [{ resolve, reject }]);
      if (this.queued.size >= MAX_KEYS) this.dispatch();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.dispatch());
      }
    });
  }

  private dispatch(): void {
    this.scheduled = false;
    const batch = this.queued;
    if (batch.size === 0) return;
    this.queued = new Map();
    this.load([...batch.keys()]).then(
      (values) => { for (const [key, waiters] of batch) for (const w of waiters) w.resolve(values.get(key)); },
      (error: unknown) => { for (const waiters of batch.values()) for (const w of waiters) w.reject(error); },
    );
  }
}

/** One set of batches per store (a process may open several stores: tests, the CLI). */
export function perStore<T>(create: (store: Store) => T): (store: Store) => T {
  const made = new WeakMap<Store, T>();
  return (store) => {
    let value = made.get(store);
    if (!value) made.set(store, (value = create(store)));
    return value;
  };
}

/** A batch of lookups by `_id` in one collection: `{ _id: { $in: [...] } }`, which a unique index answers. */
export function byId<D extends { _id: string }>(read: (ids: string[]) => Promise<D[]>): ReadBatch<string, D> {
  return new ReadBatch(async (ids) => new Map((await read(ids)).map((doc) => [doc._id, doc])));
}
