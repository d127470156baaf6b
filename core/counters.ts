import type { Store } from './store';

/** The next integer id of a namespace in an account (1, 2, …): one atomic upsert, durable before it returns. */
export async function nextId(store: Store, account: string, namespace: string): Promise<number> {
  const counter = await store.counters.findOneAndUpdate(
    { _id: `${account}:${namespace}` },
    { $inc: { seq: 1 } },
    { upsert: true, returnDocument: 'after' },
  );
  return counter!.seq;
}
