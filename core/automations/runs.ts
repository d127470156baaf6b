// The records of automation runs: matching an event to the automations it starts (its contact
// created if missing), each run's record (its steps' snapshot), and the run's end. Every write is
// conditional or keyed by a derived id, so an activity run again (a retry, a replayed event)
// changes nothing twice, and the automation's stats count each run once.
import { createContact } from '../contacts/contacts';
import { AppError, ErrorCode } from '../shared/errors';
import { PermanentFailure } from '../shared/permanent-failure';
import { isDuplicateKey, type AutomationDoc, type AutomationRunDoc, type Store, type TriggerEventDoc } from '../../adapters/store/store';
import type { AutomationRunEnd, AutomationRunInput, AutomationStepPlan, TriggerAutomationInput, TriggerMatch } from '../../adapters/temporal/contracts';
import { automationDocId, automationRunDocId, TRIGGER_CONTACT_SOURCE, triggerEventDocId } from './model';

/** The failure type of an event whose record is gone: nothing can be matched, no retry helps. */
export const TRIGGER_EVENT_MISSING = 'TriggerEventMissing';

/** Creates the event's contact (ACTIVE) unless the account has it; a simultaneous creation is as good. */
async function ensureContact(store: Store, account: string, email: string): Promise<void> {
  if (await store.contacts.findOne({ account, email }, { projection: { _id: 1 } })) return;
  try {
    await createContact(store, account, { email }, TRIGGER_CONTACT_SOURCE);
  } catch (error) {
    if (error instanceof AppError && error.code === ErrorCode.Conflict) return;
    // Any other refusal is about the address itself (it passed the intake's check): retrying cannot help.
    if (error instanceof AppError) throw new PermanentFailure(error.code, `the contact cannot be created: ${error.message}`);
    throw error;
  }
}

/** The automations the event starts, fixed on its record by the first match (a retry, or a replay, starts the same). */
async function fixMatch(store: Store, event: TriggerEventDoc): Promise<number[]> {
  if (event.matched) return event.matched;
  const { account } = event;
  const found = await store.automations.find({ account, enabled: true, 'trigger.type': 'custom', 'trigger.key': event.key })
    .project<{ id: number }>({ id: 1 }).toArray();
  const ids = found.map((automation) => automation.id).sort((a, b) => a - b);
  const filter = { _id: event._id, account };
  const fixed = await store.triggerEvents.findOneAndUpdate(
    { ...filter, matched: { $exists: false } }, { $set: { matched: ids } }, { returnDocument: 'after', projection: { matched: 1 } },
  );
  if (fixed?.matched) return fixed.matched;
  // What is stored wins: an attempt that raced this one fixed it first.
  return (await store.triggerEvents.findOne(filter, { projection: { matched: 1 } }))?.matched ?? ids;
}

/** A run record for each matched automation still enabled; `stats.triggered` counts the records this call inserted. */
async function insertRuns(store: Store, event: TriggerEventDoc, matched: number[]): Promise<void> {
  if (matched.length === 0) return;
  const { account, eventId, email } = event;
  const automations = await store.automations.find({ account, id: { $in: matched }, enabled: true })
    .project<Pick<AutomationDoc, '_id' | 'id' | 'activation' | 'steps'>>({ _id: 1, id: 1, activation: 1, steps: 1 }).toArray();
  const started = new Date();
  await Promise.all(automations.map(async (automation) => {
    const run: AutomationRunDoc = {
      _id: automationRunDocId(account, automation.id, eventId), account, automationId: automation.id, eventId, email,
      activation: automation.activation, steps: automation.steps, state: 'running', started, ended: null,
    };
    try {
      await store.automationRuns.insertOne(run);
    } catch (error) {
      if (isDuplicateKey(error)) return; // inserted (and counted) by an earlier attempt
      throw error;
    }
    await store.automations.updateOne({ _id: automation._id, account }, { $inc: { 'stats.triggered': 1 } });
  }));
}

export function createAutomationRunRecords(store: Store) {
  return {
    async matchTriggerEvent(input: TriggerAutomationInput): Promise<TriggerMatch> {
      const { account, eventId } = input;
      const event = await store.triggerEvents.findOne({ _id: triggerEventDocId(account, eventId), account });
      if (!event) throw new PermanentFailure(TRIGGER_EVENT_MISSING, `trigger event ${eventId} of ${account} is not stored`);
      await ensureContact(store, account, event.email);
      const matched = await fixMatch(store, event);
      await insertRuns(store, event, matched);
      // The runs to start: those with a record (an automation deactivated before its record was written has none).
      const runs = matched.length === 0 ? [] : await store.automationRuns
        .find({ _id: { $in: matched.map((id) => automationRunDocId(account, id, eventId)) }, account })
        .project<{ automationId: number }>({ automationId: 1 }).toArray();
      const withRun = new Set(runs.map((run) => run.automationId));
      return { email: event.email, automationIds: matched.filter((id) => withRun.has(id)) };
    },

    async beginAutomationRun(input: AutomationRunInput): Promise<AutomationStepPlan[] | null> {
      const { account, automationId, eventId } = input;
      const run = await store.automationRuns.findOne({ _id: automationRunDocId(account, automationId, eventId), account }, { projection: { steps: 1 } });
      if (!run) return null;
      return run.steps.map((step): AutomationStepPlan => (step.type === 'wait' ? { type: 'wait', ms: step.seconds * 1000 } : { type: 'email' }));
    },

    async finishAutomationRun(input: AutomationRunEnd): Promise<void> {
      const { account, automationId, eventId, state, reason } = input;
      const ended = await store.automationRuns.updateOne(
        { _id: automationRunDocId(account, automationId, eventId), account, state: 'running' },
        { $set: { state, ended: new Date(), ...(reason ? { reason } : {}) } },
      );
      // Only the call that ended the run counts it (a retry finds it ended already).
      if (ended.modifiedCount === 1) await store.automations.updateOne({ _id: automationDocId(account, automationId), account }, { $inc: { [`stats.${state}`]: 1 } });
    },
  };
}
