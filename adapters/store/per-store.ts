// What a process keeps per store connection: batchers of one turn's lookups, the tracking key
// read once, the event writer of tracking hits. Each is made on first use and held by the Store
// object itself (its `scoped` map), so it lives exactly as long as that connection, which the
// composition root opens and closes, and nothing is kept at module level. A process may hold
// several stores (tests, the CLI): each gets its own. One with work of its own (a timer) has a
// stop(), called when its store closes, so nothing uses a closed connection.
import type { Store } from './store';

/** A maker of one thing per store: `const readerOf = perStore((store) => new Reader(store))`. */
export function perStore<T>(create: (store: Store) => T): (store: Store) => T {
  const key = Symbol('per-store');
  return (store) => {
    if (!store.scoped.has(key)) store.scoped.set(key, create(store));
    return store.scoped.get(key) as T;
  };
}

/** Stops what the store's kept values run of their own (Store.close calls it before closing the client). */
export function stopScoped(scoped: Store['scoped']): void {
  for (const kept of scoped.values()) (kept as { stop?: () => void }).stop?.();
}
