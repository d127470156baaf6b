// Tracking hits on a message whose send is not recorded yet. A worker killed between the relay's
// 250 and the message's ledger write leaves a delivered message without its row until the retried
// send records it (seconds; minutes while Temporal is down). Its links are genuine (signed, and
// its stored request names it), so they work as any other link does; the hit is stored here
// before it is answered, and recorded once the row exists (./recorder.ts). A sweep looks every
// SWEEP_MS while anything is held, in each API process that held a hit or found some at its
// start. Recording is idempotent (a held hit's _id is the hit's identity, and its events' track_ids
// are made from it: ./recorder.ts), so two processes sweeping one hit, a sweep that stopped before
// removing it, or a request retried after its hold was stored but not answered, record it once.
// A hit whose message ended otherwise (failed, dropped), or is still unrecorded after HELD_MS, is
// dropped: there is no sent message to record it against.
import type { ObjectId } from 'mongodb';
import { isDuplicateKey, type EventDoc, type HeldHitDoc, type Store } from '../../adapters/store/store';
import { sentEventOf } from '../sending/sent-mail';

const SWEEP_MS = 2000;
/** A day: a send is retried within minutes, unless Temporal stays down that long. */
const HELD_MS = 24 * 3_600_000;
const PAGE = 500;

export interface HeldHitsTuning { sweepMs: number; heldMs: number }

export class HeldHits {
  private timer: NodeJS.Timeout | undefined;
  /** A hit held since the running sweep read its page: sweep again even if that page was the last. */
  private heldSinceSweep = false;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly record: (held: HeldHitDoc, sent: EventDoc) => Promise<void>,
    private readonly tuning: HeldHitsTuning = { sweepMs: SWEEP_MS, heldMs: HELD_MS },
  ) {}

  /** Stores the hit (resolves once it is durable; its _id stored already means it is) and makes sure a sweep will record it. */
  async hold(hit: HeldHitDoc): Promise<void> {
    try {
      await this.store.heldHits.insertOne(hit);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    this.heldSinceSweep = true;
    this.schedule();
  }

  /** At a process's start: sweeps what an earlier process left held, if anything. */
  async resume(): Promise<void> {
    if (await this.store.heldHits.findOne({}, { projection: { _id: 1 } })) this.schedule();
  }

  /** With the store's connection (adapters/store/per-store.ts). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Records the held hits whose message is recorded as sent now, drops those past hope; answers how many are still held. */
  async sweep(now = Date.now()): Promise<number> {
    let waiting = 0;
    let after: ObjectId | undefined;
    for (;;) {
      const page = await this.store.heldHits.find(after ? { _id: { $gt: after } } : {}).sort({ _id: 1 }).limit(PAGE).toArray();
      if (page.length === 0) return waiting;
      after = page[page.length - 1]._id;
      const outcomes = await Promise.all(page.map((held) => sentEventOf(this.store, held.account, held.mailId)));
      const done: ObjectId[] = [];
      const recording: Array<Promise<void>> = [];
      page.forEach((held, i) => {
        const outcome = outcomes[i];
        if (!outcome && now - held._id.getTimestamp().getTime() < this.tuning.heldMs) {
          waiting += 1;
          return;
        }
        if (outcome?.track_type === 'track.mail.sent') recording.push(this.record(held, outcome));
        done.push(held._id);
      });
      await Promise.all(recording);
      if (done.length > 0) await this.store.heldHits.deleteMany({ _id: { $in: done } });
    }
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => void this.sweepAndGoOn(), this.tuning.sweepMs);
    this.timer.unref();
  }

  private async sweepAndGoOn(): Promise<void> {
    this.heldSinceSweep = false;
    let waiting = 1;
    try {
      waiting = await this.sweep();
    } catch {
      // The store is down, say: the next sweep tries again.
    }
    this.timer = undefined;
    if (waiting > 0 || this.heldSinceSweep) this.schedule();
  }
}
