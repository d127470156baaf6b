// The relays as an account sees them (GET /v2/{account}/relays, the console's Relays page): the
// relays file's relays in its order, with their conditions and limits, where they point (a host,
// never the URL's credentials), and how the worker processes see them, from the leases each one
// renews every second (adapters/relay/relay-shares.ts) rather than by asking the workers.
//
// Several accounts share one install: an account sees the relays that may take its mail, and
// never another account's name. A relay reserved to other accounts is left out altogether (its
// name may well be a customer's, and it routes none of this account's mail); a relay that names
// this account among others shows `accounts: [this account]`.
import type { RelayLeaseDoc, Store } from '../../adapters/store/store';
import { DEFAULT_MAX_CONNECTIONS, type RelayDefinition, type Stream } from '../../adapters/relay/routes';
import { hostOf } from '../shared/url-host';

export type RelayState = 'up' | 'down' | 'partly down' | 'unknown';
export type RelayCounts = RelayLeaseDoc['counts'];

export interface RelayView {
  name: string;
  conditions: { streams?: Stream[]; accounts?: string[]; senderDomains?: string[]; recipientDomains?: string[] };
  ratePerSecond?: number;
  maxConnections: number;
  /** protocol//host:port of its URL. */
  host: string;
  state: RelayState;
  /** Since each live worker started: the sum of their leases' counts. */
  counts: RelayCounts;
  /** Worker processes holding a live lease of the relay. */
  workers: number;
}

/** The leases' word on a relay: unknown with none (no worker runs, or none renewed within its lease). */
export function stateOf(leases: Array<Pick<RelayLeaseDoc, 'up'>>): RelayState {
  if (leases.length === 0) return 'unknown';
  const up = leases.filter((lease) => lease.up).length;
  if (up === leases.length) return 'up';
  return up === 0 ? 'down' : 'partly down';
}

/** Whether the relay may take the account's mail: no `accounts` condition, or one naming it. */
export function visibleTo(relay: RelayDefinition, account: string): boolean {
  return !relay.accounts || relay.accounts.includes(account);
}

/** The relay as `account` sees it, from the live leases of its relay (pure). */
export function relayView(relay: RelayDefinition, account: string, leases: Array<Pick<RelayLeaseDoc, 'up' | 'counts'>>): RelayView {
  const counts: RelayCounts = { sent: 0, deferred: 0, failed: 0, trouble: 0 };
  for (const lease of leases) {
    for (const outcome of Object.keys(counts) as Array<keyof RelayCounts>) counts[outcome] += lease.counts[outcome] ?? 0;
  }
  const { streams, accounts, senderDomains, recipientDomains } = relay;
  const conditions = {
    ...(streams ? { streams } : {}),
    ...(accounts ? { accounts: accounts.filter((name) => name === account) } : {}),
    ...(senderDomains ? { senderDomains } : {}),
    ...(recipientDomains ? { recipientDomains } : {}),
  };
  return {
    name: relay.name,
    conditions,
    ...(relay.ratePerSecond !== undefined ? { ratePerSecond: relay.ratePerSecond } : {}),
    maxConnections: relay.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    host: hostOf(relay.url),
    state: stateOf(leases),
    counts,
    workers: leases.length,
  };
}

/** The relays `account` sees, in file order, with the live leases read from the store. */
export async function relayViews(store: Store, relays: RelayDefinition[], account: string, now = new Date()): Promise<RelayView[]> {
  const shown = relays.filter((relay) => visibleTo(relay, account));
  if (shown.length === 0) return [];
  const live = await store.relayLeases.find(
    { relay: { $in: shown.map((relay) => relay.name) }, expiresAt: { $gt: now } },
    { projection: { relay: 1, up: 1, counts: 1 } },
  ).toArray();
  return shown.map((relay) => relayView(relay, account, live.filter((lease) => lease.relay === relay.name)));
}
