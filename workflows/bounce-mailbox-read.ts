import { proxyActivities } from '@temporalio/workflow';
import type { BounceMailboxReadResult, createBounceMailboxActivities } from '../activities/bounce-mailbox';

type Activities = ReturnType<typeof createBounceMailboxActivities>;

const { readBounceMailbox } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** Batches one run takes at most (500 messages each): a mailbox that filled up while Herald was away empties over a few runs. */
const MAX_BATCHES = 10;

/** What a run read, in all its batches. */
export interface BounceMailboxRunResult { batches: number; bounces: number; complaints: number; nothing: number; unreadable: number; more: boolean }

/**
 * One read of the bounce mailbox, started every `everySeconds` by its Temporal Schedule (created by
 * the worker when the relays file names a mailbox): batch after batch while more messages wait.
 */
export async function BounceMailboxRead(): Promise<BounceMailboxRunResult> {
  const total: BounceMailboxRunResult = { batches: 0, bounces: 0, complaints: 0, nothing: 0, unreadable: 0, more: false };
  for (;;) {
    const batch: BounceMailboxReadResult = await readBounceMailbox();
    total.batches += 1;
    total.bounces += batch.bounces;
    total.complaints += batch.complaints;
    total.nothing += batch.nothing;
    total.unreadable += batch.unreadable;
    total.more = batch.more;
    if (!batch.more || total.batches >= MAX_BATCHES) return total;
  }
}
