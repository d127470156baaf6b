// Activities of the TriggerAutomation and AutomationRun workflows (workflows/trigger-automation.ts).
// FOUNDATION STUB: the signatures are fixed; the bodies are being built.
import type { Store } from '../core/store';
import type { RelaySender } from '../core/transport';
import type {
  AutomationRunEnd, AutomationRunInput, AutomationStepInput, AutomationStepOutcome, AutomationStepPlan, TriggerAutomationInput, TriggerMatch,
} from '../core/workflow-contracts';

export interface AutomationActivityDeps {
  store: Store; transport: RelaySender; mtaHost: string; publicUrl: string; bounceDomain?: string;
}

export function createAutomationActivities(deps: AutomationActivityDeps) {
  void deps;
  return {
    /** Creates the event's contact if missing; fixes and returns the active automations whose key equals the event's, with a run record each. */
    async matchTriggerEvent(input: TriggerAutomationInput): Promise<TriggerMatch> { throw new Error(`not built ${input.eventId}`); },
    /** The run's steps, or null when it has no record. */
    async beginAutomationRun(input: AutomationRunInput): Promise<AutomationStepPlan[] | null> { throw new Error(`not built ${input.eventId}`); },
    /** Sends step `step`'s email to the run's contact (once: the ledger decides). */
    async sendAutomationEmail(input: AutomationStepInput): Promise<AutomationStepOutcome> { throw new Error(`not built ${input.eventId}`); },
    /** After the email step's retries ran out: its message recorded as failed (a soft bounce). */
    async recordAutomationEmailFailed(input: AutomationStepInput & { reason: string }): Promise<void> { throw new Error(`not built ${input.eventId}`); },
    /** The run's end: its record's state, and the automation's stats (once). */
    async finishAutomationRun(input: AutomationRunEnd): Promise<void> { throw new Error(`not built ${input.eventId}`); },
  };
}
