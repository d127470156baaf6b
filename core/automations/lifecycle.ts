// Stopping an automation's runs (a deactivation or a deletion of the automation).
import type { Client } from '@temporalio/client';
import type { Store } from '../../adapters/store/store';
import { requestWorkflowCancel } from '../../adapters/temporal/client';
import { workflowIds } from '../../adapters/temporal/contracts';

/** Cancellations asked of Temporal at once. */
const CANCELS_AT_ONCE = 8;

/**
 * Stops the automation's runs that are still running (a deactivation or a deletion): each run's
 * workflow is cancelled, so one waiting in a timer ends at once, as `exited`, sending nothing
 * more. Best effort: a run this misses stops at its next email step anyway (the activation check).
 * Returns how many runs it asked to stop.
 */
export async function stopAutomationRuns(deps: { store: Store; temporal: Client }, account: string, automationId: number): Promise<number> {
  const runs = await deps.store.automationRuns.find({ account, automationId, state: 'running' }).project<{ eventId: string }>({ _id: 0, eventId: 1 }).toArray();
  let next = 0;
  const canceller = async () => {
    while (next < runs.length) {
      const { eventId } = runs[next++];
      await requestWorkflowCancel(deps.temporal, workflowIds.automationRun(account, eventId, automationId));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CANCELS_AT_ONCE, runs.length) }, canceller));
  return runs.length;
}
