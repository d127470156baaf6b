// FOUNDATION STUB: the signature is fixed; the body is being built.
import type { Client } from '@temporalio/client';
import type { Store } from '../store';

/**
 * Stops the automation's runs that are still running (a deactivation or a deletion): each run's
 * workflow is cancelled, so one waiting in a timer ends at once, as `exited`, sending nothing
 * more. Best effort: a run this misses stops at its next email step anyway (the activation check).
 * Returns how many runs it asked to stop.
 */
export async function stopAutomationRuns(deps: { store: Store; temporal: Client }, account: string, automationId: number): Promise<number> {
  void deps; void account; void automationId;
  return 0;
}
