// Automations of an account: create, read, page, change, delete, activate, deactivate. A change
// is allowed while the automation is enabled: each run works from the steps it began with (its
// record's snapshot), so a PUT changes only the runs that start after it. Activation and
// deactivation are single conditional writes, so concurrent calls change the record once.
import type { Filter } from 'mongodb';
import { changedValues, findPage, type Page, type PageRequest } from '../../adapters/store/paging';
import { nextId } from '../../adapters/store/counters';
import { errors, fieldError } from '../shared/errors';
import type { AutomationDoc, Store } from '../../adapters/store/store';
import type { AutomationFields } from './input';
import { automationDocId as docId } from './model';

export interface AutomationFilters {
  enabled?: boolean;
}

const gone = () => errors.notFound('No such automation');

/** A new automation, disabled, its stats at zero. */
export async function createAutomation(store: Store, account: string, fields: Partial<AutomationFields> & Pick<AutomationFields, 'name' | 'trigger'>): Promise<AutomationDoc> {
  const id = await nextId(store, account, 'automations');
  const now = new Date();
  const automation: AutomationDoc = {
    _id: docId(account, id), account, id, name: fields.name, comments: fields.comments ?? '', tags: fields.tags ?? [],
    trigger: fields.trigger, steps: fields.steps ?? [], enabled: false, activation: 0,
    created: now, lastModified: now, activated: null, deactivated: null,
    stats: { triggered: 0, completed: 0, exited: 0, failed: 0 },
  };
  await store.automations.insertOne(automation);
  return automation;
}

export function findAutomation(store: Store, account: string, id: number): Promise<AutomationDoc | null> {
  return Number.isInteger(id) ? store.automations.findOne({ _id: docId(account, id), account }) : Promise.resolve(null);
}

/** A page of the account's automations; `q` matches the name. */
export function findAutomations(store: Store, account: string, page: PageRequest, filters: AutomationFilters): Promise<Page<AutomationDoc>> {
  const query: Filter<AutomationDoc> = { account, ...(filters.enabled !== undefined ? { enabled: filters.enabled } : {}) };
  return findPage(store.automations, query, page);
}

/** Applies the fields that differ and returns only those; NOT_FOUND when the automation went meanwhile. */
export async function updateAutomation(store: Store, automation: AutomationDoc, fields: Partial<AutomationFields>): Promise<Partial<AutomationFields>> {
  const changes = changedValues<AutomationFields>(automation, fields);
  if (Object.keys(changes).length === 0) return changes;
  const { matchedCount } = await store.automations.updateOne(
    { _id: automation._id, account: automation.account },
    { $set: { ...changes, lastModified: new Date() } },
  );
  if (matchedCount === 0) throw gone();
  return changes;
}

/** Removes the record; the caller then stops its runs (they also stop by themselves at their next email step). */
export async function deleteAutomation(store: Store, automation: AutomationDoc): Promise<void> {
  const { deletedCount } = await store.automations.deleteOne({ _id: automation._id, account: automation.account });
  if (deletedCount === 0) throw gone();
}

const noEmailStep = () => errors.validation({ steps: fieldError('required_at_least_one', 'An automation needs at least one email step to be activated') });

/**
 * Enables it under a new activation (the counter runs check). Needs an email step. An enabled
 * automation is answered as it is: activating twice changes nothing.
 */
export async function activateAutomation(store: Store, automation: AutomationDoc): Promise<AutomationDoc> {
  if (automation.enabled) return automation;
  if (!automation.steps.some((step) => step.type === 'email')) throw noEmailStep();
  const now = new Date();
  const activated = await store.automations.findOneAndUpdate(
    { _id: automation._id, account: automation.account, enabled: false, 'steps.type': 'email' },
    { $set: { enabled: true, activated: now, lastModified: now }, $inc: { activation: 1 } },
    { returnDocument: 'after' },
  );
  if (activated) return activated;
  // Missed: deleted, activated by another call, or its email steps removed meanwhile.
  const current = await findAutomation(store, automation.account, automation.id);
  if (!current) throw gone();
  if (current.enabled) return current;
  throw noEmailStep();
}

/** Disables it; a disabled automation is answered as it is. The caller then stops its runs. */
export async function deactivateAutomation(store: Store, automation: AutomationDoc): Promise<AutomationDoc> {
  if (!automation.enabled) return automation;
  const now = new Date();
  const deactivated = await store.automations.findOneAndUpdate(
    { _id: automation._id, account: automation.account, enabled: true },
    { $set: { enabled: false, deactivated: now, lastModified: now } },
    { returnDocument: 'after' },
  );
  if (deactivated) return deactivated;
  const current = await findAutomation(store, automation.account, automation.id);
  if (!current) throw gone();
  return current;
}
