// A migration's progress as people read it, for the task's message and the CLI's line: the step
// under way, how far it got, and that step's own ETA.
import { MIGRATION_STEPS } from './run';

/**
 * The step under way's own ETA, at its rate since its first counted batch: steps differ wildly
 * (ten fields, then 200,000 contacts) and a step may wait on the source first (its export).
 */
export class StepClock {
  private index = -1;
  private first: { done: number; at: number } | undefined;

  /** Seconds left in step `index`; -1 until two counted reports give a rate. */
  eta(index: number, done: number, total: number | undefined, now = Date.now()): number {
    if (index !== this.index) {
      this.index = index;
      this.first = undefined;
    }
    if (!total || done <= 0) return -1;
    if (done >= total) return 0;
    if (!this.first) this.first = { done, at: now };
    if (done === this.first.done) return -1;
    const secondsPerElement = (now - this.first.at) / 1000 / (done - this.first.done);
    return Math.ceil((total - done) * secondsPerElement);
  }
}

/** `Step 4 of 8, contacts: 5,000 of 100,000, about 12 s left`, as the task's message. */
export function stepMessage(step: string, index: number, done: number, total: number | undefined, eta: number): string {
  const head = `Step ${index + 1} of ${MIGRATION_STEPS.length}, ${step}`;
  if (total === undefined) return `${head}: ${done === 0 ? 'reading the source' : `${done.toLocaleString('en-US')} done`}`;
  const left = eta <= 0 ? '' : eta < 60 ? `, about ${eta} s left` : `, about ${Math.ceil(eta / 60)} min left`;
  return `${head}: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}${left}`;
}
