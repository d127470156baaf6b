import {
  CancellationScope, isCancellation, ParentClosePolicy, proxyActivities, sleep, startChild, WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { createAutomationActivities } from '../activities/automations';
import { KEPT_DEFERRING, RELAY_TROUBLE_RETRY } from '../core/sending/deferral';
import {
  searchAttributeKeys, workflowIds,
  type AutomationRunInput, type AutomationRunState, type TriggerAutomationInput,
} from '../adapters/temporal/contracts';
import { reasonGivenUp, sendWhileDeferred } from './send-policy';

type Activities = ReturnType<typeof createAutomationActivities>;

const { matchTriggerEvent, beginAutomationRun, finishAutomationRun, recordAutomationEmailFailed } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumInterval: '30 seconds' },
});
// One message, as every sender sends: relay trouble is retried with backoff (RELAY_TROUBLE_RETRY)
// and a deferral (4xx) sent again by the one deferral policy (./send-policy.ts); when either runs
// out, the message is recorded as failed (a soft bounce) and the run ends failed.
const { sendAutomationEmail } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: RELAY_TROUBLE_RETRY,
});

/**
 * One accepted custom trigger event: creates its contact if missing, finds the active automations
 * whose trigger key equals the event's (fixed on the event's record by the first attempt, so a
 * retry starts the same ones), and starts a run of each as a child workflow of its own (searchable
 * by account, automation and contact). The runs outlive this workflow (ABANDON); their ids derive
 * from the event, so a replayed event starts none twice.
 */
export async function TriggerAutomation(input: TriggerAutomationInput): Promise<{ started: number[] }> {
  const { account, eventId } = input;
  const { email, automationIds } = await matchTriggerEvent(input);
  for (const automationId of automationIds) {
    try {
      await startChild(AutomationRun, {
        workflowId: workflowIds.automationRun(account, eventId, automationId),
        args: [{ account, eventId, automationId }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: searchAttributeKeys.account, value: account },
          { key: searchAttributeKeys.automation, value: String(automationId) },
          { key: searchAttributeKeys.contact, value: email },
        ],
        staticSummary: `Automation ${automationId} of ${account} for ${email} (event ${eventId})`,
      });
    } catch (error) {
      // A run with this id exists already (this workflow's earlier run was reset): it is started.
      if (!(error instanceof Error && error.name === 'WorkflowExecutionAlreadyStartedError')) throw error;
    }
  }
  return { started: automationIds };
}

/**
 * One automation run: its steps in order (from the run's record, a snapshot taken when the event
 * matched). A wait is a durable timer; an email step sends one message to the contact. The run
 * stops, sending nothing more, when its automation was deactivated since it began (the email step
 * finds out) or when the deactivation cancels this workflow (while it waits).
 */
export async function AutomationRun(input: AutomationRunInput): Promise<AutomationRunState> {
  let state: Exclude<AutomationRunState, 'running'> = 'completed';
  let reason: string | undefined;
  try {
    const steps = await beginAutomationRun(input);
    if (steps === null) return 'exited'; // no record: the automation was deleted before the run began
    for (let step = 0; step < steps.length && state === 'completed'; step += 1) {
      const plan = steps[step];
      if (plan.type === 'wait') {
        await sleep(plan.ms);
        continue;
      }
      try {
        const { last, gaveUp } = await sendWhileDeferred(() => sendAutomationEmail({ ...input, step }), (outcome) => outcome === 'deferred');
        if (gaveUp) reason = KEPT_DEFERRING;
        else if (last === 'exited') state = 'exited';
      } catch (error) {
        reason = reasonGivenUp(error);
      }
      if (reason !== undefined) {
        await recordAutomationEmailFailed({ ...input, step, reason });
        state = 'failed';
      }
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    state = 'exited';
    reason = 'the automation was deactivated';
  }
  await CancellationScope.nonCancellable(() => finishAutomationRun({ ...input, state, reason }));
  return state;
}
