// How pruning yields to the API: it removes in pages of a bounded size, each a few short store
// commands, with a pause between pages so the store (on the embedded one, a lock per collection)
// serves the API's requests in between; and it tells its activity it is alive after each page.
import { setTimeout as sleep } from 'node:timers/promises';

export interface PruneTuning {
  /** Documents read per page (a page of events is completed with the rest of its messages' events). */
  pageSize: number;
  /** The pause after each page. */
  pauseMs: number;
}

export const DEFAULT_PRUNE_TUNING: PruneTuning = { pageSize: 1000, pauseMs: 250 };

export interface PruneControls {
  /** Called after each page (the activity heartbeats, the pruner renews its hold on the account). */
  progress(): void | Promise<void>;
  /** True once the pruning should stop (its activity is cancelled, or its time is up): it stops between pages. */
  stopped(): boolean;
}

/**
 * Removes page after page: `page` removes one and says how many documents it removed, or null
 * when nothing is left (a page may remove none and leave more: what it found is kept). Returns the total.
 */
export async function inPages(controls: PruneControls, tuning: PruneTuning, page: () => Promise<number | null>): Promise<number> {
  let removed = 0;
  while (!controls.stopped()) {
    const n = await page();
    await controls.progress();
    if (n === null) break;
    removed += n;
    if (tuning.pauseMs > 0) await sleep(tuning.pauseMs);
  }
  return removed;
}
