// Activities of the TriggerAutomation and AutomationRun workflows (workflows/trigger-automation.ts):
// the run records (./automation-match.ts) and the email steps (./automation-email.ts).
import type { Store } from '../adapters/store/store';
import type { RelaySender } from '../adapters/relay/transport';
import type {
  AutomationRunEnd, AutomationRunInput, AutomationStepInput, AutomationStepOutcome, AutomationStepPlan, TriggerAutomationInput, TriggerMatch,
} from '../adapters/temporal/contracts';
import { createAutomationEmailActivities } from './automation-email';
import { createAutomationRunRecords } from './automation-match';

export interface AutomationActivityDeps {
  store: Store; transport: RelaySender; mtaHost: string; publicUrl: string; bounceDomain?: string;
}

export function createAutomationActivities(deps: AutomationActivityDeps) {
  const records = createAutomationRunRecords(deps.store);
  const emails = createAutomationEmailActivities(deps);
  return {
    /** Creates the event's contact if missing; fixes and returns the active automations whose key equals the event's, with a run record each. */
    matchTriggerEvent: (input: TriggerAutomationInput): Promise<TriggerMatch> => records.matchTriggerEvent(input),
    /** The run's steps, or null when it has no record. */
    beginAutomationRun: (input: AutomationRunInput): Promise<AutomationStepPlan[] | null> => records.beginAutomationRun(input),
    /** Sends step `step`'s email to the run's contact (once: the ledger decides). */
    sendAutomationEmail: (input: AutomationStepInput): Promise<AutomationStepOutcome> => emails.sendAutomationEmail(input),
    /** After the email step's retries ran out: its message recorded as failed (a soft bounce). */
    recordAutomationEmailFailed: (input: AutomationStepInput & { reason: string }): Promise<void> => emails.recordAutomationEmailFailed(input),
    /** The run's end: its record's state, and the automation's stats (once). */
    finishAutomationRun: (input: AutomationRunEnd): Promise<void> => records.finishAutomationRun(input),
  };
}
