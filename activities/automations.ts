// Activities of the TriggerAutomation and AutomationRun workflows (workflows/trigger-automation.ts):
// thin adapters over the run records (core/automations/runs.ts) and the email steps
// (core/automations/email-step.ts, through the send engine).
import { Context } from '@temporalio/activity';
import { createEmailSteps } from '../core/automations/email-step';
import { createAutomationRunRecords } from '../core/automations/runs';
import type {
  AutomationRunEnd, AutomationRunInput, AutomationStepInput, AutomationStepOutcome, AutomationStepPlan, TriggerAutomationInput, TriggerMatch,
} from '../adapters/temporal/contracts';
import { asActivity, engineDeps, sendControls, type SendDeps } from './adapter';

export type AutomationActivityDeps = SendDeps;

export function createAutomationActivities(deps: AutomationActivityDeps) {
  const records = createAutomationRunRecords(deps.store);
  const emails = createEmailSteps(engineDeps(deps));
  return {
    /** Creates the event's contact if missing; fixes and returns the active automations whose key equals the event's, with a run record each. */
    matchTriggerEvent: (input: TriggerAutomationInput): Promise<TriggerMatch> => asActivity(() => records.matchTriggerEvent(input)),
    /** The run's steps, or null when it has no record. */
    beginAutomationRun: (input: AutomationRunInput): Promise<AutomationStepPlan[] | null> => records.beginAutomationRun(input),
    /** Sends step `step`'s email to the run's contact (once: the ledger decides); `deferred`: the relay deferred it. */
    sendAutomationEmail: (input: AutomationStepInput): Promise<AutomationStepOutcome> => asActivity(() => emails.send(input, sendControls())),
    /** After the email step's retries or deferrals ran out: its message recorded as failed (a soft bounce). */
    recordAutomationEmailFailed: (input: AutomationStepInput & { reason: string }): Promise<void> => (
      asActivity(() => emails.giveUp(input, input.reason, Context.current().log))
    ),
    /** The run's end: its record's state, and the automation's stats (once). */
    finishAutomationRun: (input: AutomationRunEnd): Promise<void> => records.finishAutomationRun(input),
  };
}
