import type { Store } from './store';

/** The next integer id of a namespace in an account (1, 2, …): one atomic upsert, durable before it returns. */
export async function nextId(store: Store, account: string, namespace: string): Promise<number> {
  return reserveIds(store, account, namespace, 1);
}

/**
 * Reserves `count` consecutive ids of a namespace in one atomic `$inc` (durable before it
 * returns) and gives the first; the caller owns first … first + count - 1. Every caller of the
 * same counter gets ids no one else gets, whether it takes them one by one or in blocks.
 */
export async function reserveIds(store: Store, account: string, namespace: string, count: number): Promise<number> {
  const counter = await store.counters.findOneAndUpdate(
    { _id: `${account}:${namespace}` },
    { $inc: { seq: count } },
    { upsert: true, returnDocument: 'after' },
  );
  return counter!.seq - count + 1;
}

/** The last id a namespace of an account has given (0 when none yet): every id of it is at most this. */
export async function lastId(store: Store, account: string, namespace: string): Promise<number> {
  const counter = await store.counters.findOne({ _id: `${account}:${namespace}` });
  return counter?.seq ?? 0;
}
