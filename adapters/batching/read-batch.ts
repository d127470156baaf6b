// Lookups that requests arriving together share (adapters/batching/turn-batch.ts): each asks for the same few
// documents (the API key, its user, the list, the account's custom fields), and a lookup asked
// for during a turn goes out at its end as one query with every key asked for meanwhile, each
// key once.
//
// Not a cache: nothing outlives its query, and each query starts after every request it serves
// has arrived, so each request still sees every write acknowledged before it arrived (a revoked
// key or a deleted user fails at once, in every process).
import { TurnBatch } from './turn-batch';

export class ReadBatch<K, V> {
  /** The keys of the batch not yet sent, and where each one's value will come from. */
  private queued = new Map<K, Promise<V | undefined>>();
  private readonly batch: TurnBatch<K, V | undefined>;

  /** @param load reads the values of the keys (one query); keys it leaves out resolve to undefined */
  constructor(load: (keys: K[]) => Promise<Map<K, V>>) {
    this.batch = new TurnBatch(async (keys) => {
      this.queued.clear(); // every queued key goes out now: a later ask reads again
      const values = await load(keys);
      return keys.map((key) => ({ value: values.get(key) }));
    });
  }

  /** The value of key as read by the next query. Shared with the other requests of the batch: do not change it. */
  get(key: K): Promise<V | undefined> {
    const queued = this.queued.get(key);
    if (queued) return queued;
    const value = this.batch.add(key);
    // add may have sent the batch at once (it was full): then this key has gone out already.
    if (this.batch.waiting > 0) this.queued.set(key, value);
    return value;
  }
}

/** A batch of lookups by `_id` in one collection: `{ _id: { $in: [...] } }`, which a unique index answers. */
export function byId<D extends { _id: string }>(read: (ids: string[]) => Promise<D[]>): ReadBatch<string, D> {
  return new ReadBatch(async (ids) => new Map((await read(ids)).map((doc) => [doc._id, doc])));
}
