// One pruning run over every account, in account order, as the retention schedule starts it every
// hour (adapters/temporal/schedules.ts). `after` is the checkpoint of a run that stopped: the
// accounts up to it are done. The horizon of each account is taken from the run's `now`.
import type { Store } from '../../adapters/store/store';
import type { PruneControls, PruneTuning } from './pages';
import { pruneAccount } from './prune-account';

export interface PruneRunOptions {
  holder: string;
  now: Date;
  controls: PruneControls;
  tuning: PruneTuning;
  /** The last account a previous attempt of this run finished. */
  after?: string;
  /** Told each account once it is done (the activity's checkpoint). */
  done(account: string): void;
}

export interface PruneRunResult {
  accounts: number;
  /** Accounts another pruner held (left to the next run). */
  held: number;
  events: number;
  requests: number;
  snapshots: number;
  runs: number;
  triggerEvents: number;
  idempotencyKeys: number;
  /** The run stopped before the last account (its time was up): the next run goes on. */
  stopped: boolean;
}

export async function pruneAllAccounts(store: Store, options: PruneRunOptions): Promise<PruneRunResult> {
  const result: PruneRunResult = { accounts: 0, held: 0, events: 0, requests: 0, snapshots: 0, runs: 0, triggerEvents: 0, idempotencyKeys: 0, stopped: false };
  const accounts = await store.accounts.find(options.after ? { _id: { $gt: options.after } } : {}).project<{ _id: string }>({ _id: 1 }).sort({ _id: 1 }).toArray();
  for (const { _id: account } of accounts) {
    if (options.controls.stopped()) {
      result.stopped = true;
      break;
    }
    const pruned = await pruneAccount(store, account, options);
    if (pruned.state === 'held') result.held += 1;
    if (pruned.state === 'pruned' || pruned.state === 'stopped') {
      result.accounts += 1;
      for (const key of ['events', 'requests', 'snapshots', 'runs', 'triggerEvents', 'idempotencyKeys'] as const) result[key] += pruned[key];
    }
    if (pruned.state === 'stopped') {
      result.stopped = true;
      break;
    }
    options.done(account);
  }
  return result;
}
