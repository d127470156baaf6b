// herald_gathering_backlog as a worker sees it: each drain of an account's send queue reports how
// many requests wait in it (every 2 s and when it ends), and the gauge is their sum over the
// accounts this worker drained. An account at 0 is forgotten, so the map holds only accounts with
// work waiting.
import { metrics } from '../adapters/metrics/registry';

export class SendQueueBacklog {
  private readonly byAccount = new Map<string, number>();
  private total = 0;

  set(account: string, entries: number): void {
    this.total += entries - (this.byAccount.get(account) ?? 0);
    if (entries > 0) this.byAccount.set(account, entries);
    else this.byAccount.delete(account);
    metrics.gatheringBacklog.set(this.total);
  }
}
