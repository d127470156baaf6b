// Contacts of an account: create, update, upsert into a list, memberships and unsubscription.
// Emails are unique per account (a unique index decides, so concurrent creates cannot both win).
// Ids come from blocks this process reserved on the account's counter (adapters/store/id-blocks.ts): unique,
// but with gaps, and not in creation order.
import { findPage, type Page, type PageRequest } from '../../adapters/store/paging';
import { newContact, planUpdate, planUpsert, upsertNeedsStoredContact, type ContactInput } from './changes';
import { checkReferences, readReferences, validateReferences, type ContactContext } from './references';
import { writeContactUpsert } from './upsert-batch';
import { AppError, ErrorCode, errors, fieldError } from '../shared/errors';
import { contactIds } from '../../adapters/store/id-blocks';
import { isDuplicateKey, type ContactDoc, type Store } from '../../adapters/store/store';
import { normaliseEmail } from '../accounts/users';

export type { ContactInput } from './changes';
export { checkReferences, contactContext, customFieldsOf, fitsFormat, type ContactContext } from './references';

/** A contact as written, with the references the request read (for the record's view: contactContext). */
export interface WrittenContact { contact: ContactDoc; context: ContactContext }

/** A page of the account's contacts matching the listing's filters, searched by email. */
export function findContacts(store: Store, account: string, filters: object[], page: PageRequest): Promise<Page<ContactDoc>> {
  return findPage(store.contacts, Object.assign({ account }, ...filters), page, 'email');
}

export async function deleteContact(store: Store, contact: ContactDoc): Promise<void> {
  await store.contacts.deleteOne({ _id: contact._id, account: contact.account });
}

/** The contact a path names: an integer id, or an email address. */
export function findContact(store: Store, account: string, ref: string): Promise<ContactDoc | null> {
  if (/^\d{1,12}$/.test(ref)) return store.contacts.findOne({ _id: `${account}:${Number(ref)}`, account });
  return store.contacts.findOne({ account, email: normaliseEmail(ref) });
}

/** Creates a contact (state ACTIVE); RESOURCE_EXISTS with the existing id when the email is taken. */
export async function createContact(store: Store, account: string, input: ContactInput & { email: string }, source = 'MANUAL'): Promise<ContactDoc> {
  return (await createContactWithContext(store, account, input, source)).contact;
}

/** createContact, also giving what it read; `allFields` reads every custom field (the record shows them). */
export async function createContactWithContext(
  store: Store, account: string, input: ContactInput & { email: string }, source = 'MANUAL', options: { allFields?: boolean } = {},
): Promise<WrittenContact> {
  const context = await checkReferences(store, account, input, options);
  return { contact: await insertContact(store, account, input, source), context };
}

/** Inserts a new contact; RESOURCE_EXISTS with the existing id when the email is taken. */
async function insertContact(store: Store, account: string, input: ContactInput & { email: string }, source: string): Promise<ContactDoc> {
  const contact = newContact(account, await contactIds.take(store, account), input, source, new Date());
  try {
    await store.contacts.insertOne(contact);
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    // The existing id goes along: a client of the original updates that contact next.
    const existing = await store.contacts.findOne({ account, email: contact.email });
    // The email's index refused it, so the id was not used (when no contact has the email, the
    // index that refused may have been the id's: that id is dropped).
    if (existing) contactIds.giveBack(store, account, contact.id);
    throw errors.conflict('A contact with this email already exists',
      { email: fieldError('invalid_value', 'This email is already a contact of the account') }, existing ? { id: existing.id } : undefined);
  }
  return contact;
}

/** Applies a partial update (see planUpdate). Returns the fields that changed, as stored. */
export async function updateContact(store: Store, contact: ContactDoc, input: ContactInput): Promise<Partial<ContactDoc>> {
  await checkReferences(store, contact.account, input);
  const { changes, update } = planUpdate(contact, input);
  if (Object.keys(changes).length === 1) return {}; // only lastModified: nothing to write
  await store.contacts.updateOne({ _id: contact._id, account: contact.account }, update);
  Object.assign(contact, changes);
  return changes;
}

/**
 * POST /lists/{id}/contacts: creates the contact, or updates the one with that email, and puts
 * it in the list (keeping its other lists).
 */
export async function upsertIntoList(store: Store, account: string, listId: number, input: ContactInput & { email: string }): Promise<ContactDoc> {
  return (await upsertIntoListWithContext(store, account, listId, input)).contact;
}

/**
 * upsertIntoList, also giving what it read (`allFields`: every custom field). The list and the
 * references are read once, in parallel; then usually one write decides between create and
 * update (planUpsert). A create that loses a race becomes an update.
 */
export async function upsertIntoListWithContext(
  store: Store, account: string, listId: number, input: ContactInput & { email: string }, options: { allFields?: boolean } = {},
): Promise<WrittenContact> {
  const references = { ...input, lists: [...(input.lists ?? []), listId] };
  const context = await readReferences(store, account, references, options);
  if (!context.listNames.has(listId)) throw errors.notFound(`No list with id ${listId}`);
  validateReferences(references, context);
  const write = upsertNeedsStoredContact(input) ? upsertByReading : upsertInOneWrite;
  for (let attempt = 0; attempt < 3; attempt++) {
    const contact = await write(store, account, listId, input);
    if (contact) return { contact, context };
  }
  throw errors.unavailable('The contact is being changed by another request, please retry');
}

/** One upsert (planUpsert), sent with those of other requests (core/contacts/upsert-batch.ts); null when it must be tried again. */
async function upsertInOneWrite(store: Store, account: string, listId: number, input: ContactInput & { email: string }): Promise<ContactDoc | null> {
  const id = await contactIds.take(store, account);
  const { filter, update } = planUpsert(account, id, listId, input, 'MANUAL', new Date());
  const contact = await writeContactUpsert(store, { ...filter, update });
  // An update: the id was not used. (When the write was refused, the id is not given back: the
  // unique index that refused may have been the id's.)
  if (contact && contact.id !== id) contactIds.giveBack(store, account, id);
  return contact;
}

/** Reads the contact, then updates it (planUpdate) or creates it; null when a simultaneous change won. */
async function upsertByReading(store: Store, account: string, listId: number, input: ContactInput & { email: string }): Promise<ContactDoc | null> {
  const existing = await store.contacts.findOne({ account, email: normaliseEmail(input.email) });
  if (existing) {
    // One write: the changes, and the list. A lists array in the body replaces the contact's
    // lists; otherwise the list is added with $addToSet, so simultaneous upserts into
    // different lists all stay.
    const { update } = planUpdate(existing, input.lists ? { ...input, lists: [...input.lists, listId] } : input);
    if (!input.lists) update.$addToSet = { lists: listId };
    return store.contacts.findOneAndUpdate({ _id: existing._id, account }, update, { returnDocument: 'after' }); // null: deleted meanwhile, create it
  }
  try {
    return await insertContact(store, account, { ...input, lists: [...(input.lists ?? []), listId] }, 'MANUAL');
  } catch (error) {
    if (error instanceof AppError && error.code === ErrorCode.Conflict) return null; // another request created it: update
    throw error;
  }
}

/** Adds or removes one list or interest, leaving the others as they are. */
export async function setMembership(
  store: Store, contact: ContactDoc, kind: 'lists' | 'interests', id: number, member: boolean,
): Promise<Partial<ContactDoc>> {
  const exists = await store[kind].findOne({ _id: `${contact.account}:${id}`, account: contact.account });
  if (!exists) throw errors.notFound(`No ${kind === 'lists' ? 'list' : 'interest'} with id ${id}`);
  const now = new Date();
  const filter = { _id: contact._id, account: contact.account };
  if (kind === 'lists') {
    await store.contacts.updateOne(filter, member ? { $addToSet: { lists: id }, $set: { lastModified: now } } : { $pull: { lists: id }, $set: { lastModified: now } });
  } else if (member) {
    await store.contacts.updateOne({ ...filter, 'interests.id': { $ne: id } }, { $push: { interests: { id, subscribed: now } }, $set: { lastModified: now } });
  } else {
    await store.contacts.updateOne(filter, { $pull: { interests: { id } }, $set: { lastModified: now } });
  }
  const updated = await store.contacts.findOne(filter);
  return { [kind]: updated?.[kind] ?? [] };
}

/** Marks the contact unsubscribed: no more mail; only an opt-in form brings it back. */
export async function unsubscribe(store: Store, contact: ContactDoc): Promise<Partial<ContactDoc>> {
  if (contact.state === 'UNSUBSCRIBED') return { state: 'UNSUBSCRIBED' };
  const changes = { state: 'UNSUBSCRIBED' as const, lastModified: new Date() };
  await store.contacts.updateOne({ _id: contact._id, account: contact.account }, { $set: changes });
  return changes;
}
