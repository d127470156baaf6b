// An automation run's email step: one message to the run's contact, sent through the send
// engine's per-message loop (activities/message-sender.ts: suppression, DKIM, VERP, hard bounces,
// the ledger). The ledger decides first: a step whose mail_id has a row was done (a retry, a
// replayed event) and sends nothing again. Then the automation must still be the one the run
// began under (enabled, same activation), and the contact ACTIVE.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { defaultBounceDomain } from '../core/bounces/return-path';
import { buildEvent } from '../core/tracking/events';
import { LedgerWriter } from '../core/sending/ledger';
import type { AutomationDoc, AutomationEmailStep, AutomationRunDoc, EventDoc, MessageDoc, Store } from '../adapters/store/store';
import { trackingSecret } from '../core/content/tracking/secret';
import type { PlannedMessage } from '../core/sending/plan';
import type { RelaySender } from '../adapters/relay/transport';
import type { AutomationStepInput, AutomationStepOutcome } from '../adapters/temporal/contracts';
import { automationMessage, automationModel, buildAutomationEmail, eventContext, type AutomationMessageRef } from '../core/automations/message';
import { automationDocId, automationMailId, automationRunDocId, triggerEventDocId } from '../core/automations/model';
import { ledgerRow, recordLedgerEvents, sendMessages } from './message-sender';

export interface AutomationEmailDeps {
  store: Store; transport: RelaySender; mtaHost: string; publicUrl: string; bounceDomain?: string;
}

/** The failure type of a step the run's record does not hold as an email: no retry helps. */
const STEP_INVALID = 'AutomationStepInvalid';
/** The failure type of a deferral (4xx): the workflow's retry policy sends it again later. */
const RELAY_DEFERRED = 'RelayDeferred';

type Automation = Pick<AutomationDoc, 'enabled' | 'activation' | 'tags'>;

export function createAutomationEmailActivities(deps: AutomationEmailDeps) {
  const { store, mtaHost, publicUrl } = deps;
  const senderDeps = { store, transport: deps.transport, mtaHost, bounceDomain: deps.bounceDomain ?? defaultBounceDomain(mtaHost) };

  /** The run and its email step, or null when the run has no record. */
  async function loadStep(input: AutomationStepInput): Promise<{ run: AutomationRunDoc; email: AutomationEmailStep } | null> {
    const { account, automationId, eventId, step } = input;
    const run = await store.automationRuns.findOne({ _id: automationRunDocId(account, automationId, eventId), account });
    if (!run) return null;
    const email = run.steps[step];
    if (email?.type !== 'email') throw ApplicationFailure.nonRetryable(`step ${step} of automation ${automationId}'s run is not an email step`, STEP_INVALID);
    return { run, email };
  }

  /** The step's ledger row (its outcome), if it has one; its event is stored again in case a crash kept it out. */
  async function ledgerOutcome(input: AutomationStepInput): Promise<MessageDoc['status'] | undefined> {
    const mailId = automationMailId(input.account, input.automationId, input.eventId, input.step);
    const row = await store.messages.findOne({ _id: mailId, account: input.account }, { projection: { status: 1, event: 1 } });
    if (!row) return undefined;
    await recordLedgerEvents(store, [row.event]);
    return row.status;
  }

  const automationOf = (input: AutomationStepInput) => store.automations.findOne(
    { _id: automationDocId(input.account, input.automationId), account: input.account }, { projection: { enabled: 1, activation: 1, tags: 1 } },
  ) as Promise<Automation | null>;

  const refOf = (input: AutomationStepInput, run: AutomationRunDoc, automation: Automation | null): AutomationMessageRef => ({
    account: input.account, automationId: input.automationId, eventId: input.eventId, step: input.step, email: run.email, tags: automation?.tags ?? [],
  });

  /** Records an outcome without sending: the message's ledger row and its event. */
  async function recordUnsent(message: PlannedMessage, status: MessageDoc['status'], response: string, eventOf: (at: Date) => EventDoc): Promise<void> {
    const at = new Date();
    message.subject.sent_timestamp = at;
    await new LedgerWriter(store).record(ledgerRow(message, status, response, eventOf(at), mtaHost));
  }

  const softBounce = (message: PlannedMessage, uniqueness: string, text: string) => (at: Date) => (
    buildEvent('track.mail.bounced', message.subject, at, uniqueness, { bounce_type: 'soft', message: text.slice(0, 500) })
  );

  return {
    async sendAutomationEmail(input: AutomationStepInput): Promise<AutomationStepOutcome> {
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
        const message = automationMessage(ref, mtaHost);
        await recordUnsent(message, 'dropped', 'unsubscribed', (at) => buildEvent('track.mail.dropped', message.subject, at, 'unsubscribed'));
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
        const reason = `the message could not be built: ${(error as Error).message}`;
        Context.current().log.error('an automation email cannot be built: recorded as failed', { automationId: input.automationId, step: input.step, error: reason });
        const message = automationMessage(ref, mtaHost);
        await recordUnsent(message, 'failed', reason, softBounce(message, 'unbuildable', reason));
        return 'failed';
      }
      const context = Context.current();
      const tally = await sendMessages(senderDeps, { account, messages: [built], beat: (count) => context.heartbeat(count) });
      if (tally.sent) return 'sent';
      if (tally.failed) return 'failed';
      if (tally.dropped) return 'dropped';
      // Deferred (4xx): no ledger row; this attempt fails and the workflow's retry policy sends it again later.
      throw ApplicationFailure.retryable('the relay deferred the message (4xx)', RELAY_DEFERRED);
    },

    async recordAutomationEmailFailed(input: AutomationStepInput & { reason: string }): Promise<void> {
      const loaded = await loadStep(input);
      if (!loaded || (await ledgerOutcome(input))) return;
      const message = automationMessage(refOf(input, loaded.run, await automationOf(input)), mtaHost);
      await recordUnsent(message, 'failed', input.reason, softBounce(message, 'gave-up', `not sent: ${input.reason}`));
      Context.current().log.warn('an automation email was recorded as failed', { automationId: input.automationId, step: input.step, reason: input.reason });
    },
  };
}
