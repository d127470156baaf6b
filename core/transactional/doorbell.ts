// The doorbell between the API and an account's sender. A sender draining the account's send
// queue says so in the store (`drainingUntil`, renewed with its heartbeats); the API, once a
// request's queue entry is stored, rings the account's AccountSender only when no sender says so.
// A burst of requests then costs one ring (or none) instead of a Temporal signal each.
//
// Nothing is lost between the two: a sender that finds its queue empty clears its mark first and
// reads the queue once more before it stops, and the API reads the mark only after its entry is
// stored. Either that last read finds the entry, or the API finds the mark cleared and rings.
// A sender that dies leaves a mark that lapses after LEASE_MS, and Temporal retries its drain.
import type { Store } from '../../adapters/store/store';
import { byId } from '../../adapters/batching/read-batch';
import { perStore } from '../../adapters/store/per-store';
import { ringAccountSender, type SignalDeps } from '../../adapters/temporal/client';

/** How long a sender's mark holds without being renewed (it renews it every 2 s while draining). */
export const LEASE_MS = 10_000;
/**
 * A mark this close to lapsing is taken as lapsed: the API rings (harmless when the sender is alive),
 * so a sender that died moments ago, or a clock a little behind the sender's, costs no wait.
 */
const MARGIN_MS = 3_000;

/** The sender's mark: draining the account's queue for LEASE_MS from `now`. */
export async function markDraining(store: Store, account: string, now = Date.now()): Promise<void> {
  await store.senders.updateOne({ _id: account }, { $set: { drainingUntil: new Date(now + LEASE_MS) } }, { upsert: true });
}

/** The sender stops: its mark is cleared (before its last read of the queue). */
export async function clearDraining(store: Store, account: string): Promise<void> {
  await store.senders.updateOne({ _id: account }, { $set: { drainingUntil: new Date(0) } }, { upsert: true });
}

/** The marks asked for in one turn, read together (each account once). */
const marks = perStore((store) => byId((accounts) => store.senders.find({ _id: { $in: accounts } }).toArray()));

async function isDraining(store: Store, account: string): Promise<boolean> {
  const sender = await marks(store).get(account);
  return sender !== undefined && sender.drainingUntil.getTime() > Date.now() + MARGIN_MS;
}

/** Called once the request's queue entry is stored: rings the account's sender unless one is draining its queue. */
export async function ringUnlessDraining(deps: SignalDeps & { store: Store }, account: string): Promise<void> {
  if (!(await isDraining(deps.store, account))) await ringAccountSender(deps, account);
}
