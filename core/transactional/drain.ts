// The account's sender at work: one drain (an activity of the account's AccountSender) takes the
// entries of the account's send queue (./send-queue.ts) in order, a page at a time, and sends
// their messages through the send engine (./send-requests.ts), a few pages at once, until the
// queue has stayed empty for a while. It says so in the store while it runs (./doorbell.ts), so
// the API rings no one meanwhile: a stream of single sends costs store reads here, not a Temporal
// signal and an activity each.
//
// A request the relay deferred stays in the queue with the time it is due again; one deferred too
// often is given up (a soft bounce). The relay's own trouble, or a failed store write, ends the
// drain with that error once its pages in flight are recorded, and Temporal retries it: the retry
// takes the same entries again and resumes from the ledger, so a crash re-sends at most the
// messages that were in flight, with their Message-IDs.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ObjectId } from 'mongodb';
import type { SendQueueDoc } from '../../adapters/store/store';
import type { DrainResult } from '../../adapters/temporal/contracts';
import { delayBeforeNextSend, KEPT_DEFERRING } from '../sending/deferral';
import { WriteQueue } from '../../adapters/batching/write-queue';
import { LedgerWriter, type SentBy } from '../sending/ledger';
import { SendingStopped, type SendControls } from '../sending/message-loop';
import { clearDraining, markDraining } from './doorbell';
import { claim, complete, defer, nextDue, readReady, waiting } from './send-queue';
import { createRequestSender, type RequestSenderDeps } from './send-requests';

export interface DrainTuning {
  /** Entries one page takes at most. */
  pageSize: number;
  /** Pages being sent at once (each sends up to SEND_CONCURRENCY messages at a time). */
  pagesInFlight: number;
  /** The first wait before the queue is read again after finding nothing; it doubles up to maxPollMs. */
  pollMs: number;
  maxPollMs: number;
  /** The drain ends once the queue stayed empty this long (the next request rings again). */
  idleMs: number;
  /** The whole queue is read from its start this often: an entry another API process stored late, behind the pages read, is found. */
  rereadMs: number;
  /** A drain returns after this long (its pages finish), so the workflow can continue as new; the next one starts at once. */
  maxDrainMs: number;
  /** How often a drain heartbeats and renews its mark (well within the mark's lease, ./doorbell.ts). */
  heartbeatMs: number;
}

export const DRAIN_TUNING: DrainTuning = {
  pageSize: 100, pagesInFlight: 3, pollMs: 10, maxPollMs: 50, idleMs: 5_000, rereadMs: 1_000, maxDrainMs: 10 * 60_000, heartbeatMs: 2_000,
};

/** What a drain learns from its activity besides the send controls. */
export interface DrainControls extends SendControls {
  /** The Temporal run draining, stamped on every ledger row. */
  sentBy?: SentBy;
  /** Told every 2 s and at the end how many entries wait in the queue (the worker's gauge). */
  backlog?(entries: number): void;
  /**
   * The worker is stopping: the drain takes no more entries and, once its pages in flight are
   * recorded, ends with `again` (the next drain runs on a worker that is up), so a stop waits for
   * the messages being sent, not for the queue's idle time.
   */
  stopping?: AbortSignal;
}

export function createQueueDrain(deps: RequestSenderDeps, tuning: DrainTuning = DRAIN_TUNING) {
  const { store } = deps;
  const sender = createRequestSender(deps);
  const urgent = <T>(work: Promise<T>) => (deps.priority ? deps.priority.urgent(work) : work);

  return async function drain(account: string, controls: DrainControls): Promise<DrainResult> {
    const started = Date.now();
    const counts = { sent: 0, failed: 0 };
    /** Entries in a page now, by id: a read of the queue skips them. */
    const taken = new Map<string, SendQueueDoc>();
    const pages = new Set<Promise<void>>();
    let cursor: ObjectId | undefined;
    let lastFullRead = 0;
    let stop: unknown;
    let again = false;
    // Shared by the pages, so that what they write while a write is in flight goes in the next one.
    const ledger = new LedgerWriter(store, controls.sentBy);
    const completions = new WriteQueue<ObjectId>((ids) => complete(store, account, ids));

    const page = async (entries: SendQueueDoc[]) => {
      const claimed = await claim(store, account, entries);
      if (claimed.length === 0) return;
      const fresh = new Set(claimed.filter((entry) => !entry.taken && entry.deferrals === undefined).map((entry) => entry.requestId));
      const outcome = await sender.send(
        { account, requests: claimed.map(({ requestId, batchId }) => ({ requestId, batchId })) },
        { ...controls, heartbeat: () => undefined },
        { fresh, ledger },
      );
      counts.sent += outcome.sent;
      counts.failed += outcome.failed;
      const deferred = new Set(outcome.deferred);
      const done = claimed.filter((entry) => !deferred.has(entry.requestId)).map((entry) => entry._id);
      if (done.length > 0) await completions.add(done);
      for (const entry of claimed.filter((e) => deferred.has(e.requestId))) {
        const deferrals = (entry.deferrals ?? 0) + 1;
        const delay = delayBeforeNextSend(deferrals);
        if (delay === null) {
          const given = await sender.giveUp({ account, requests: [entry] }, KEPT_DEFERRING, controls.log);
          counts.failed += given.failed;
          await completions.add([entry._id]);
        } else {
          await defer(store, entry, deferrals, new Date(Date.now() + delay));
        }
      }
    };
    const start = (entries: SendQueueDoc[]) => {
      for (const entry of entries) taken.set(entry._id.toHexString(), entry);
      const running: Promise<void> = urgent(page(entries))
        .catch((error: unknown) => { stop ??= error; })
        .finally(() => {
          for (const entry of entries) taken.delete(entry._id.toHexString());
          pages.delete(running);
        });
      pages.add(running);
    };
    /** Entries ready and in no page: after the cursor, or from the queue's start when a full read is due. */
    const readMore = async (full: boolean) => {
      const limit = tuning.pageSize + (full ? taken.size : 0);
      const read = await readReady(store, account, limit, new Date(), full ? undefined : cursor);
      if (full) lastFullRead = Date.now();
      const last = read.at(-1)?._id;
      if (last && (!cursor || last.toHexString() > cursor.toHexString())) cursor = last; // hex order is ObjectId order
      return read.filter((entry) => !taken.has(entry._id.toHexString())).slice(0, tuning.pageSize);
    };

    // The mark is renewed with each beat, but never once the drain cleared it to stop: a renewal
    // landing after the clear would keep the API from ringing while nobody drains. So one beat's
    // store part runs at a time (a tick that finds one still running skips it), and the stop
    // waits for it before it clears the mark.
    let marking = true;
    let beating: Promise<void> | undefined;
    const beat = async () => {
      if (marking) await markDraining(store, account);
      controls.backlog?.(await waiting(store, account));
    };
    const beats = setInterval(() => {
      // Temporal hears from the drain on every tick, its store part done or not: a store slow to
      // take the mark (a long read holding its writes: the soak saw one for minutes) is no dead
      // worker, and a retried attempt would only wait behind the same read.
      controls.heartbeat({ ...counts, inFlight: taken.size });
      beating ??= beat().catch(() => undefined).finally(() => { beating = undefined; });
    }, tuning.heartbeatMs);
    try {
      await markDraining(store, account);
      controls.heartbeat({ ...counts, inFlight: 0 });
      let idleSince = Date.now();
      let pause = tuning.pollMs;
      for (;;) {
        if (controls.signal?.aborted) stop ??= new SendingStopped(controls.signal.reason);
        if (stop !== undefined) break;
        if (Date.now() - started >= tuning.maxDrainMs || controls.stopping?.aborted) {
          again = true;
          break;
        }
        if (pages.size < tuning.pagesInFlight) {
          const entries = await readMore(Date.now() - lastFullRead >= tuning.rereadMs);
          if (entries.length > 0) {
            start(entries);
            idleSince = Date.now();
            pause = tuning.pollMs;
            // A full page: more may wait at once. A short one: a few ms let the next page gather
            // more than one request (a steady stream would otherwise cost a page per request).
            if (entries.length === tuning.pageSize) continue;
          }
        }
        if (pages.size === 0 && Date.now() - idleSince >= tuning.idleMs) {
          // Cleared before the last look, so that a request stored after it rings (./doorbell.ts).
          marking = false;
          await beating;
          await clearDraining(store, account);
          const late = await readMore(true);
          if (late.length === 0) break;
          marking = true;
          await markDraining(store, account);
          start(late);
          idleSince = Date.now();
          continue;
        }
        await Promise.race([sleep(pause), ...pages]);
        if (pages.size === 0) pause = Math.min(pause * 2, tuning.maxPollMs);
      }
      await Promise.all(pages); // each ends once its messages in flight are recorded
      if (stop !== undefined) throw stop;
      const [left, due] = await Promise.all([waiting(store, account), nextDue(store, account)]);
      controls.backlog?.(left);
      return { ...counts, left, ...(due !== undefined ? { nextDueAt: due } : {}), ...(again ? { again } : {}) };
    } finally {
      clearInterval(beats);
    }
  };
}
