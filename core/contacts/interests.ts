// Interests of an account. A contact's interests live on the contact (ContactDoc.interests),
// so deleting an interest takes it off every contact.
import { changedValues, findPage, type Page, type PageRequest } from '../../adapters/store/paging';
import { nextId } from '../../adapters/store/counters';
import type { InterestDoc, Store } from '../../adapters/store/store';

/** expirationDays 0: the interest never expires on a contact. */
export interface InterestInput { name: string; description?: string; expirationDays?: number }

function normalise<T extends Partial<InterestInput>>(input: T): T {
  return input.name !== undefined ? { ...input, name: input.name.trim() } : input;
}

/** Creates an interest; `reservedId`: an id taken from the counter beforehand (see createList). */
export async function createInterest(store: Store, account: string, input: InterestInput, reservedId?: number): Promise<InterestDoc> {
  const { name, description = '', expirationDays = 0 } = normalise(input);
  const id = reservedId ?? await nextId(store, account, 'interests');
  const now = new Date();
  const interest: InterestDoc = {
    _id: `${account}:${id}`, account, id, name, description, expirationDays, created: now, lastModified: now, lastMailed: null,
  };
  await store.interests.insertOne(interest);
  return interest;
}

export function findInterest(store: Store, account: string, id: number): Promise<InterestDoc | null> {
  return store.interests.findOne({ _id: `${account}:${id}`, account });
}

export function findInterests(store: Store, account: string, page: PageRequest): Promise<Page<InterestDoc>> {
  return findPage(store.interests, { account }, page);
}

/** Applies what differs from the interest; returns only that. */
export async function updateInterest(store: Store, interest: InterestDoc, input: Partial<InterestInput>): Promise<Partial<InterestInput>> {
  const changes = changedValues<InterestInput>(interest, normalise(input));
  if (Object.keys(changes).length > 0) {
    await store.interests.updateOne({ _id: interest._id, account: interest.account }, { $set: { ...changes, lastModified: new Date() } });
  }
  return changes;
}

/** Deletes the interest, then takes it off every contact (ids are never reused: see deleteList). */
export async function deleteInterest(store: Store, account: string, id: number): Promise<boolean> {
  const { deletedCount } = await store.interests.deleteOne({ _id: `${account}:${id}`, account });
  if (deletedCount === 0) return false;
  await store.contacts.updateMany({ account, 'interests.id': id }, { $pull: { interests: { id } } });
  return true;
}
