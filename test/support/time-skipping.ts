// The time-skipping test server wedges a workflow for good when a cancellation's workflow task
// cancels a timer that fired meanwhile: it refuses the completion ("invalid history builder state
// for action") and never hands the run another task (temporalio/sdk-java#3088). Time skips only
// while the client awaits a result, so a test that cancels a sleeping workflow waits with this for
// the workflow to have taken the cancellation before it awaits the result: the timer is cancelled
// by then and nothing can fire under the cancel. Without it the test hung on a busy machine.
import type { WorkflowHandle } from '@temporalio/client';
import { waitUntil } from './wait';

/** Resolves once a workflow task completed after the cancel request and no timer is left open. */
export function cancellationTaken(handle: WorkflowHandle): Promise<true> {
  return waitUntil(`workflow ${handle.workflowId} to take its cancellation`, async () => {
    const events = (await handle.fetchHistory()).events ?? [];
    let cancelRequested = false;
    let taskAfterCancel = false;
    let openTimers = 0;
    for (const event of events) {
      if (event.workflowExecutionCancelRequestedEventAttributes) cancelRequested = true;
      else if (event.workflowTaskCompletedEventAttributes && cancelRequested) taskAfterCancel = true;
      else if (event.timerStartedEventAttributes) openTimers += 1;
      else if (event.timerFiredEventAttributes || event.timerCanceledEventAttributes) openTimers -= 1;
      // A run already closed (cancelled, completed) has nothing left to wedge.
      else if (event.workflowExecutionCanceledEventAttributes || event.workflowExecutionCompletedEventAttributes) return true;
    }
    return taskAfterCancel && openTimers === 0;
  });
}
