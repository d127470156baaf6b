// Node 20's AsyncLocalStorage costs every promise created anywhere in the process one step per
// storage ever enabled, and a storage stays enabled until disabled, which nothing does. Each test
// file enables storages of its own: jest-circus's test context, the call context of each Temporal
// connection it opens, the activity context of a stack of its own. A jest worker that had run 50
// files paid ~50 steps per promise (measured: 50 storages make awaiting a promise ~100 times
// slower), so a worker slowed down file after file. When a file ends, the storages its own realm
// enabled are disabled; those of the worker's shared stack, whose stores are objects of the
// worker's realm, stay.
import { AsyncLocalStorage } from 'node:async_hooks';

type Storage = AsyncLocalStorage<unknown>;

/** Each storage, by the realm (its Object.prototype) of the first object it was given as a store. */
const realmOfStorage = new Map<Storage, object>();
let installed = false;

/** The root of `value`'s prototype chain: the Object.prototype of the realm that made it. */
function realmOf(value: unknown): object | undefined {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  let root: object | undefined;
  for (let proto = Object.getPrototypeOf(value) as object | null; proto; proto = Object.getPrototypeOf(proto) as object | null) root = proto;
  return root;
}

/** From now on, notes which realm each storage serves (by the store it is first given). */
export function trackAsyncStorages(): void {
  if (installed) return;
  installed = true;
  const prototype = AsyncLocalStorage.prototype as unknown as Record<'run' | 'enterWith', (this: Storage, store: unknown, ...rest: unknown[]) => unknown>;
  for (const method of ['run', 'enterWith'] as const) {
    const original = prototype[method];
    prototype[method] = function tracked(this: Storage, store: unknown, ...rest: unknown[]) {
      if (!realmOfStorage.has(this)) {
        const realm = realmOf(store);
        if (realm) realmOfStorage.set(this, realm);
      }
      return original.call(this, store, ...rest);
    };
  }
}

/** Disables the storages that served the realm whose Object.prototype is given (a test file's, once it ended). */
export function releaseAsyncStorages(realmObjectPrototype: object): void {
  for (const [storage, realm] of realmOfStorage) {
    if (realm !== realmObjectPrototype) continue;
    storage.disable();
    realmOfStorage.delete(storage);
  }
}
