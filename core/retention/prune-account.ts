// Prunes one account's history older than its retention (its settings' retentionDays): first the
// page a stopped pruner left unfinished, then its messages' events (./prune-events.ts), then the
// records that go once their events are gone (./prune-records.ts). The account is held for the
// while (./hold.ts): a second pruner skips it.
import type { Store } from '../../adapters/store/store';
import { readAccountSettings } from '../accounts/settings';
import { hold, HoldLost, pendingPage, release } from './hold';
import type { PruneControls, PruneTuning } from './pages';
import { finishPage, pruneEvents } from './prune-events';
import { pruneRecords, type RecordCounts } from './prune-records';
import { retainedSince } from './policy';

export interface AccountPruneOptions {
  /** Who prunes: the same holder may take the account again at once (a retried activity). */
  holder: string;
  now: Date;
  controls: PruneControls;
  tuning: PruneTuning;
}

export type AccountPruneResult =
  | { account: string; state: 'pruned' | 'stopped'; retainedSince: Date; events: number } & RecordCounts
  | { account: string; state: 'held' | 'gone' };

export async function pruneAccount(store: Store, account: string, options: AccountPruneOptions): Promise<AccountPruneResult> {
  const { holder, now, tuning } = options;
  const settings = await readAccountSettings(store, account);
  if (!settings) return { account, state: 'gone' };
  const since = retainedSince(now, settings.retentionDays);
  if (!(await hold(store, account, holder))) return { account, state: 'held' };
  // Each page renews the hold, so a long pruning keeps the account.
  const controls: PruneControls = {
    stopped: () => options.controls.stopped(),
    progress: async () => {
      await options.controls.progress();
      if (!(await hold(store, account, holder))) throw new HoldLost(account);
    },
  };
  try {
    const pending = await pendingPage(store, account);
    if (pending) await finishPage(store, account, pending);
    const events = await pruneEvents(store, { account, since, holder }, controls, tuning);
    const records = await pruneRecords(store, account, since, now, controls, tuning);
    const state = controls.stopped() ? 'stopped' : 'pruned';
    await release(store, account, holder, state === 'pruned' ? { at: new Date(), retainedSince: since, events, requests: records.requests } : undefined);
    return { account, state, retainedSince: since, events, ...records };
  } catch (error) {
    if (error instanceof HoldLost) return { account, state: 'held' };
    await release(store, account, holder).catch(() => undefined);
    throw error;
  }
}
