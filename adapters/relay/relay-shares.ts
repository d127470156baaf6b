// A relay's limits hold across every worker process: each process holds a lease per relay in the
// store, renewed every second, saying whether it sent through the relay since its last renewal
// (active), and the rate it took. The live leases of a relay split its `ratePerSecond` among the
// active processes, an idle one keeping a trickle (IDLE_SHARE of the rate) until its next renewal
// shows it active, so a campaign sent by one worker of several gets the whole rate; a process
// never takes more than the others' leases leave of it (so a shift from one process to another
// takes two renewals, and the sum never passes the rate; a process turning active says so in its
// lease before it raises its rate, so two turning active at once each see the other's); and its
// `maxConnections` as evenly as whole connections allow (the processes in id order take the spare
// ones; a process past the cap gets none and its messages for that relay wait). A process that stops renewing (stopped,
// killed) leaves the split within the lease's 5 s. The leases also carry how each process sees its
// relays (up, counts), which the API shows without asking workers.
import { randomUUID } from 'node:crypto';
import type { RelayLeaseDoc, Store } from '../store/store';
import type { RelayShare } from './router';
import { DEFAULT_MAX_CONNECTIONS, type RelayDefinition } from './routes';

export type RelayCounts = RelayLeaseDoc['counts'];

/** How this process sees its relays: fed by the router's events, read by the leases and the metrics. */
export class RelayStatus {
  private readonly states = new Map<string, { up: boolean; counts: RelayCounts }>();

  constructor(relays: RelayDefinition[]) {
    for (const { name } of relays) this.states.set(name, { up: true, counts: { sent: 0, deferred: 0, failed: 0, trouble: 0 } });
  }

  counted(relay: string, outcome: keyof RelayCounts, count = 1): void {
    const state = this.states.get(relay);
    if (state) state.counts[outcome] += count;
  }

  health(relay: string, up: boolean): void {
    const state = this.states.get(relay);
    if (state) state.up = up;
  }

  of(relay: string): { up: boolean; counts: RelayCounts } {
    const state = this.states.get(relay)!;
    return { up: state.up, counts: { ...state.counts } };
  }
}

export interface LeaseTuning { everyMs: number; leaseMs: number }
export const LEASE_TUNING: LeaseTuning = { everyMs: 1000, leaseMs: 5000 };

/** Leases expired this long ago are removed, by a renewal at most this often. */
const SWEEP_EXPIRED_MS = 60_000;

/** The part of a relay's rate an idle process keeps, to send its first messages before its lease says it is active. */
export const IDLE_SHARE = 0.02;

/**
 * A relay's share for the process at `rank` of `live` processes, `active` of which sent through
 * it lately (this one too when `isActive`). With none active, the rate is split evenly.
 */
export function shareOf(relay: RelayDefinition, rank: number, live: number, active = live, isActive = true): RelayShare {
  const max = relay.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const { ratePerSecond: rate } = relay;
  const idle = live - active;
  let ratePerSecond: number | undefined;
  if (rate !== undefined) {
    if (active === 0) ratePerSecond = rate / live;
    else ratePerSecond = isActive ? (rate * (1 - IDLE_SHARE * idle)) / active : rate * IDLE_SHARE;
  }
  return { ratePerSecond, maxConnections: Math.floor(max / live) + (rank < max % live ? 1 : 0) };
}

export interface RelayShares {
  readonly process: string;
  /** Renews the leases and applies the shares once (the first call before the worker sends). */
  tick(): Promise<void>;
  /** The share last applied to a relay. */
  shareOf(relay: string): RelayShare | undefined;
  /** Stops renewing and gives up this process's leases. */
  stop(): Promise<void>;
}

/**
 * Keeps this process's leases and applies its shares to `target` (the router) each `everyMs`. A
 * failed renewal (the store away) keeps the shares last applied and tries again next time.
 */
export function shareRelays(
  deps: { store: Store; relays: RelayDefinition[]; status: RelayStatus; target: { share(relay: string, share: RelayShare): void } },
  tuning: LeaseTuning = LEASE_TUNING,
): RelayShares {
  const { store, relays, status, target } = deps;
  const process = randomUUID();
  const applied = new Map<string, RelayShare>();
  /** Messages each relay had from this process at the last renewal: more now means active. */
  const seen = new Map<string, number>();
  /** Whether this process's lease of each relay, as last written, said it was active. */
  const announced = new Map<string, boolean>();
  const attemptsOf = (counts: RelayCounts) => counts.sent + counts.deferred + counts.failed + counts.trouble;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  /** When this process last removed long-expired leases (0: at its first renewal). */
  let sweptAt = 0;

  async function renew(): Promise<void> {
    const now = new Date();
    const expiresAt = new Date(now.getTime() + tuning.leaseMs);
    const names = relays.map((r) => r.name);
    const others = await store.relayLeases.find(
      { relay: { $in: names }, expiresAt: { $gt: now }, process: { $ne: process } }, { projection: { relay: 1, process: 1, active: 1, ratePerSecond: 1 } },
    ).toArray();
    const leases: RelayLeaseDoc[] = [];
    for (const relay of relays) {
      const state = status.of(relay.name);
      const attempts = attemptsOf(state.counts);
      const active = attempts > (seen.get(relay.name) ?? 0);
      seen.set(relay.name, attempts);
      const theirs = others.filter((lease) => lease.relay === relay.name);
      const processes = [process, ...theirs.map((lease) => lease.process)].sort();
      const share = shareOf(relay, processes.indexOf(process), processes.length, theirs.filter((lease) => lease.active).length + (active ? 1 : 0), active);
      if (share.ratePerSecond !== undefined) {
        // Never more than what the others left: a process that turns active takes its part as the
        // others give theirs back (their next renewal), so the sum stays within the file's rate.
        const taken = theirs.reduce((sum, lease) => sum + (lease.ratePerSecond ?? 0), 0);
        share.ratePerSecond = Math.max(0, Math.min(share.ratePerSecond, relay.ratePerSecond! - taken));
      }
      const before = applied.get(relay.name);
      // Turning active, a process first says so and raises its rate only at the next renewal: two
      // processes turning active at once would each count on the other's idle trickle otherwise.
      if (active && !announced.get(relay.name) && before?.ratePerSecond !== undefined && share.ratePerSecond !== undefined) {
        share.ratePerSecond = Math.min(share.ratePerSecond, before.ratePerSecond);
      }
      if (!before || before.ratePerSecond !== share.ratePerSecond || before.maxConnections !== share.maxConnections) {
        target.share(relay.name, share);
        applied.set(relay.name, share);
      }
      leases.push({ _id: `${relay.name}:${process}`, relay: relay.name, process, expiresAt, active, ratePerSecond: share.ratePerSecond, ...state });
    }
    await store.relayLeases.bulkWrite(leases.map(({ _id, ...lease }) => ({ replaceOne: { filter: { _id }, replacement: lease, upsert: true } })));
    for (const lease of leases) announced.set(lease.relay, lease.active);
    // Leases long expired (processes gone): the embedded store has no TTL index to remove them.
    // Once a minute, not at every renewal: an idle process's renewals are most of its store work.
    if (now.getTime() - sweptAt >= SWEEP_EXPIRED_MS) {
      await store.relayLeases.deleteMany({ expiresAt: { $lt: new Date(now.getTime() - SWEEP_EXPIRED_MS) } });
      sweptAt = now.getTime();
    }
  }

  const tick = () => (running ??= renew().finally(() => { running = undefined; }));
  timer = setInterval(() => { tick().catch(() => undefined); }, tuning.everyMs);
  timer.unref();
  return {
    process,
    tick,
    shareOf: (relay) => applied.get(relay),
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
      await store.relayLeases.deleteMany({ process }).catch(() => undefined);
    },
  };
}
