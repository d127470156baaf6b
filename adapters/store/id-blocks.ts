// Integer ids handed out from blocks this process reserved on the account's counter, so that
// creating many records does not cost one durable counter write each (contacts: the counter was
// one of two durable writes per create). Ids stay unique across processes (each block comes
// from one atomic $inc of the shared counter) but are no longer gapless or in creation order:
// the ids left in a block when the process stops are never used, and an id taken for an upsert
// that turned out to be an update is handed out again later.
//
// The block size follows the rate: about one second's worth of ids (at least 1, at most
// MAX_BLOCK), so an account that creates a record now and then reserves one id at a time and
// loses none at a restart, and a busy one reserves once per second or per MAX_BLOCK ids.
import { perStore } from './per-store';
import { reserveIds } from './counters';
import type { Store } from './store';

const MAX_BLOCK = 100;
const TARGET_MS = 1000;
/** Accounts with a block kept per store; beyond it the least recently used block is dropped (its ids become a gap). */
const MAX_ACCOUNTS = 10_000;

interface Block {
  /** Ids given back (never stored): handed out first. */
  free: number[];
  next: number;
  /** One past the last id of the current block. */
  end: number;
  size: number;
  reservedAt: number;
  /** The reservation under way, which concurrent takers wait for instead of reserving their own. */
  reserving?: Promise<void>;
}

export class IdBlocks {
  /** Per store connection (each test or process may open several), per account. */
  private readonly blocksOf = perStore(() => new Map<string, Block>());

  constructor(private readonly namespace: string) {}

  /** An id of the namespace no one else has or will get. */
  async take(store: Store, account: string): Promise<number> {
    const block = this.blockOf(store, account);
    for (;;) {
      const given = block.free.pop();
      if (given !== undefined) return given;
      if (block.next < block.end) return block.next++;
      block.reserving ??= this.reserve(store, account, block).finally(() => { block.reserving = undefined; });
      await block.reserving;
    }
  }

  /** Hands back an id taken but not stored anywhere (the write that would have used it did not). */
  giveBack(store: Store, account: string, id: number): void {
    this.blocksOf(store).get(account)?.free.push(id);
  }

  private async reserve(store: Store, account: string, block: Block): Promise<void> {
    const now = Date.now();
    // The last block lasted (now - reservedAt): size the next one to last about TARGET_MS.
    const size = Math.max(1, Math.min(MAX_BLOCK, Math.ceil((block.size * TARGET_MS) / Math.max(1, now - block.reservedAt))));
    const first = await reserveIds(store, account, this.namespace, size);
    Object.assign(block, { next: first, end: first + size, size, reservedAt: now });
  }

  private blockOf(store: Store, account: string): Block {
    const accounts = this.blocksOf(store);
    let block = accounts.get(account);
    if (block) {
      accounts.delete(account); // re-inserted below: the Map's order is then least recently used first
    } else {
      block = { free: [], next: 0, end: 0, size: 1, reservedAt: 0 };
      if (accounts.size >= MAX_ACCOUNTS) accounts.delete(accounts.keys().next().value!);
    }
    accounts.set(account, block);
    return block;
  }
}

/** Contact ids (ContactDoc.id, and the `_id` `<account>:<id>`). */
export const contactIds = new IdBlocks('contacts');
