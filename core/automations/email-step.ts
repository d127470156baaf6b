// An automation run's email step: one message to the run's contact, sent through the send engine
// as transactional requests and campaign pages are: the resume from the ledger first (a step
// whose mail_id has a row was done, by a retry or a replayed event, and sends nothing again),
// then the automation must still be the one the run began under (enabled, same activation) and
// the contact ACTIVE; the message is built (./message.ts) and sent by the per-message loop
// (suppression, DKIM, VERP, hard bounces, the ledger). What is not sent is recorded by
// core/sending/give-up.ts. A deferral (4xx) is the workflow's to send again (the one deferral policy).
import { trackingSecret } from '../content/tracking/secret';
import { PermanentFailure } from '../shared/permanent-failure';
import { recordUnsent, type Unsent } from '../sending/give-up';
import { LedgerWriter } from '../sending/ledger';
import { sendMessages, type MessageLoopDeps, type SendControls, type SendLog } from '../sending/message-loop';
import { resumeFromLedger } from '../sending/resume';
import type { AutomationDoc, AutomationEmailStep, AutomationRunDoc, LedgerFields } from '../../adapters/store/store';
import type { AutomationStepInput, AutomationStepOutcome } from '../../adapters/temporal/contracts';
import { automationMessage, automationModel, buildAutomationEmail, eventContext, type AutomationMessageRef } from './message';
import { automationDocId, automationMailId, automationRunDocId, triggerEventDocId } from './model';

export interface EmailStepDeps extends MessageLoopDeps { publicUrl: string }

/** The failure type of a step the run's record does not hold as an email: no retry helps. */
export const STEP_INVALID = 'AutomationStepInvalid';

type Automation = Pick<AutomationDoc, 'enabled' | 'activation' | 'tags'>;

export function createEmailSteps(deps: EmailStepDeps) {
  const { store, mtaHost, publicUrl } = deps;

  /** The run and its email step, or null when the run has no record. */
  async function loadStep(input: AutomationStepInput): Promise<{ run: AutomationRunDoc; email: AutomationEmailStep } | null> {
    const { account, automationId, eventId, step } = input;
    const run = await store.automationRuns.findOne({ _id: automationRunDocId(account, automationId, eventId), account });
    if (!run) return null;
    const email = run.steps[step];
    if (email?.type !== 'email') throw new PermanentFailure(STEP_INVALID, `step ${step} of automation ${automationId}'s run is not an email step`);
    return { run, email };
  }

  /** The step's outcome if the ledger has it (the resume from the ledger, for one message). */
  async function ledgerOutcome(input: AutomationStepInput): Promise<LedgerFields['status'] | undefined> {
    const mailId = automationMailId(input.account, input.automationId, input.eventId, input.step);
    return (await resumeFromLedger(store, input.account, [mailId])).done.get(mailId)?.status;
  }

  const automationOf = (input: AutomationStepInput) => store.automations.findOne(
    { _id: automationDocId(input.account, input.automationId), account: input.account }, { projection: { enabled: 1, activation: 1, tags: 1 } },
  ) as Promise<Automation | null>;

  const refOf = (input: AutomationStepInput, run: AutomationRunDoc, automation: Automation | null): AutomationMessageRef => ({
    account: input.account, automationId: input.automationId, eventId: input.eventId, step: input.step, email: run.email, tags: automation?.tags ?? [],
  });

  /** The step's message recorded without a send (its content is never built). */
  const recordStepUnsent = (ref: AutomationMessageRef, unsent: Unsent) => recordUnsent(new LedgerWriter(store), [automationMessage(ref, mtaHost)], unsent);

  return {
    /**
     * Sends step `step`'s email to the run's contact, once: `exited` when the automation was
     * deactivated (or deleted) since the run began, `deferred` when the relay deferred it (no
     * ledger row: the workflow sends it again), else the ledger's outcome.
     */
    async send(input: AutomationStepInput, controls: SendControls): Promise<AutomationStepOutcome> {
      const loaded = await loadStep(input);
      if (!loaded) return 'exited'; // the run's record is gone with its automation
      const done = await ledgerOutcome(input);
      if (done) return done;
      const { run, email } = loaded;
      const { account } = input;
      const [automation, contact] = await Promise.all([automationOf(input), store.contacts.findOne({ account, email: run.email })]);
      // Deactivated (or deleted) since the run began: a reactivation does not revive it.
      if (!automation?.enabled || automation.activation !== run.activation) return 'exited';
      const ref = refOf(input, run, automation);
      if (contact?.state !== 'ACTIVE') {
        await recordStepUnsent(ref, { why: 'unsubscribed' });
        return 'dropped';
      }
      const [event, fields, secret] = await Promise.all([
        store.triggerEvents.findOne({ _id: triggerEventDocId(account, input.eventId), account }, { projection: { context: 1 } }),
        store.fields.find({ account }).toArray(),
        trackingSecret(store),
      ]);
      let built: Awaited<ReturnType<typeof buildAutomationEmail>>;
      try {
        if (!event) throw new Error(`the trigger event ${input.eventId} is no longer stored`);
        built = await buildAutomationEmail(email, ref, contact, automationModel(eventContext(event), contact, fields), { mtaHost, links: { publicUrl, secret } });
      } catch (error) {
        // The same content fails the same way on every retry: the message fails, the run goes on.
        const reason = (error as Error).message;
        controls.log?.error('an automation email cannot be built: recorded as failed', { automationId: input.automationId, step: input.step, error: reason });
        await recordStepUnsent(ref, { why: 'unbuildable', reason });
        return 'failed';
      }
      const tally = await sendMessages(deps, {
        signal: controls.signal, log: controls.log, account, messages: [built], beat: (count) => controls.heartbeat(count),
        stream: 'automation',
      });
      if (tally.sent) return 'sent';
      if (tally.failed) return 'failed';
      if (tally.dropped) return 'dropped';
      return 'deferred';
    },

    /** After the step's retries or deferrals ran out: its message recorded as failed (a soft bounce), unless the ledger has it. */
    async giveUp(input: AutomationStepInput, reason: string, log?: SendLog): Promise<void> {
      const loaded = await loadStep(input);
      if (!loaded || (await ledgerOutcome(input))) return;
      await recordStepUnsent(refOf(input, loaded.run, await automationOf(input)), { why: 'gave-up', reason });
      log?.warn('an automation email was recorded as failed', { automationId: input.automationId, step: input.step, reason });
    },
  };
}
