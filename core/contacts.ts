// Contacts of an account: create, update, upsert into a list, memberships and unsubscription.
// Emails are unique per account (a unique index decides, so concurrent creates cannot both win).
import { findPage, type Page, type PageRequest } from './collections';
import { nextId } from './counters';
import { AppError, ErrorCode, errors, fieldError, type FieldError } from './errors';
import type { UpdateFilter } from 'mongodb';
import { isDuplicateKey, type ContactDoc, type FieldDoc, type Store } from './store';
import { normaliseEmail } from './users';

/** A contact's writable fields as the API validated them (references as ids). */
export interface ContactInput {
  email?: string;
  firstName?: string;
  lastName?: string;
  gender?: ContactDoc['gender'];
  language?: ContactDoc['language'];
  preferredFormat?: ContactDoc['preferredFormat'];
  customFields?: Array<{ id: number; value: string }>;
  interests?: number[];
  lists?: number[];
}

/** The custom fields of the account, by id: for validating values and showing names. */
export async function customFieldsOf(store: Store, account: string): Promise<Map<number, FieldDoc>> {
  const fields = await store.fields.find({ account }).limit(1000).toArray();
  return new Map(fields.map((f) => [f.id, f]));
}

/**
 * Checks that every referenced list, interest and custom field exists and that each custom
 * value fits its field's format; throws one VALIDATION_ERROR naming every problem.
 */
export async function checkReferences(store: Store, account: string, input: ContactInput): Promise<void> {
  const problems: Record<string, FieldError> = {};
  const missing = async (ids: number[] | undefined, collection: 'lists' | 'interests', label: string) => {
    if (!ids?.length) return;
    const found = new Set((await store[collection].find({ account, id: { $in: ids } }).project<{ id: number }>({ id: 1 }).toArray()).map((d) => d.id));
    ids.forEach((id, i) => { if (!found.has(id)) problems[`${collection}[${i}]`] ??= fieldError('invalid_value', `No ${label} with id ${id}`); });
  };
  await missing(input.lists, 'lists', 'list');
  await missing(input.interests, 'interests', 'interest');
  if (input.customFields?.length) {
    const fields = await customFieldsOf(store, account);
    input.customFields.forEach(({ id, value }, i) => {
      const field = fields.get(id);
      if (!field) problems[`customFields[${i}].id`] = fieldError('invalid_value', `No custom field with id ${id}`);
      else if (value !== '' && !fitsFormat(value, field.format)) {
        problems[`customFields[${i}].value`] = fieldError('invalid_value', `Not a valid ${field.format} for the field ${field.name}`);
      }
    });
  }
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
}

const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** INT: an integer; DATE: an ISO 8601 date or date-time, with `Z` or a `±hh[:]mm` offset. */
export function fitsFormat(value: string, format: FieldDoc['format']): boolean {
  if (format === 'INT') return /^-?\d{1,15}$/.test(value);
  if (format === 'DATE') return DATE.test(value) && !Number.isNaN(Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2').replace(' ', 'T')));
  return value.length <= 1000;
}

/** A page of the account's contacts matching the listing's filters, searched by email. */
export function findContacts(store: Store, account: string, filters: object[], page: PageRequest): Promise<Page<ContactDoc>> {
  return findPage(store.contacts, Object.assign({ account }, ...filters), page, 'email');
}

/** What a contact's record shows beside its own fields: the names of its lists and interests, and every custom field. */
export async function contactContext(store: Store, contact: ContactDoc) {
  const [lists, interests, fields] = await Promise.all([
    store.lists.find({ account: contact.account, id: { $in: contact.lists } }).project<{ id: number; name: string }>({ id: 1, name: 1 }).toArray(),
    store.interests.find({ account: contact.account, id: { $in: contact.interests.map((i) => i.id) } }).project<{ id: number; name: string }>({ id: 1, name: 1 }).toArray(),
    customFieldsOf(store, contact.account),
  ]);
  return { listNames: new Map(lists.map((l) => [l.id, l.name])), interestNames: new Map(interests.map((i) => [i.id, i.name])), fields };
}

export async function deleteContact(store: Store, contact: ContactDoc): Promise<void> {
  await store.contacts.deleteOne({ _id: contact._id, account: contact.account });
}

/** The contact a path names: an integer id, or an email address. */
export function findContact(store: Store, account: string, ref: string): Promise<ContactDoc | null> {
  if (/^\d{1,12}$/.test(ref)) return store.contacts.findOne({ _id: `${account}:${Number(ref)}`, account });
  return store.contacts.findOne({ account, email: normaliseEmail(ref) });
}

/** Creates a contact (state ACTIVE); 409 RESOURCE_EXISTS with the existing id when the email is taken. */
export async function createContact(store: Store, account: string, input: ContactInput & { email: string }, source = 'MANUAL'): Promise<ContactDoc> {
  await checkReferences(store, account, input);
  const now = new Date();
  const id = await nextId(store, account, 'contacts');
  const contact: ContactDoc = {
    _id: `${account}:${id}`,
    account,
    id,
    email: normaliseEmail(input.email),
    firstName: input.firstName ?? '',
    lastName: input.lastName ?? '',
    gender: input.gender ?? '',
    language: input.language ?? '',
    preferredFormat: input.preferredFormat ?? 'HTML',
    source,
    state: 'ACTIVE',
    quality: 0,
    lists: [...new Set(input.lists ?? [])],
    interests: [...new Set(input.interests ?? [])].map((interest) => ({ id: interest, subscribed: now })),
    customFields: Object.fromEntries((input.customFields ?? []).filter((f) => f.value !== '').map((f) => [String(f.id), f.value])),
    created: now,
    lastModified: now,
    lastMailed: null,
    lastAction: null,
    inactivated: null,
  };
  try {
    await store.contacts.insertOne(contact);
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    // The existing id goes along: a client of the original updates that contact next.
    const existing = await store.contacts.findOne({ account, email: contact.email });
    throw errors.conflict('A contact with this email already exists',
      { email: fieldError('invalid_value', 'This email is already a contact of the account') }, existing ? { id: existing.id } : undefined);
  }
  return contact;
}

/**
 * What a partial update changes, and the MongoDB update that writes it. `interests` and `lists`,
 * when given, replace the contact's own (interests kept keep their subscription date); custom
 * fields given are set one path each (an empty value clears one), so simultaneous updates of
 * different fields all stay. The email never changes.
 */
function planUpdate(contact: ContactDoc, input: ContactInput): { changes: Partial<ContactDoc>; update: UpdateFilter<ContactDoc> } {
  const changes: Partial<ContactDoc> = {};
  for (const key of ['firstName', 'lastName', 'gender', 'language', 'preferredFormat'] as const) {
    if (input[key] !== undefined && input[key] !== contact[key]) Object.assign(changes, { [key]: input[key] });
  }
  if (input.lists) changes.lists = [...new Set(input.lists)];
  if (input.interests) {
    const since = new Map(contact.interests.map((i) => [i.id, i.subscribed]));
    const now = new Date();
    changes.interests = [...new Set(input.interests)].map((id) => ({ id, subscribed: since.get(id) ?? now }));
  }
  const set: Record<string, unknown> = {};
  const unset: Record<string, ''> = {};
  if (input.customFields?.length) {
    const values = { ...contact.customFields };
    for (const { id, value } of input.customFields) {
      if (value === '') delete values[String(id)];
      else values[String(id)] = value;
      if (value === '') unset[`customFields.${id}`] = '';
      else set[`customFields.${id}`] = value;
    }
    changes.customFields = values;
  }
  changes.lastModified = new Date();
  const { customFields: _whole, ...plain } = changes;
  Object.assign(set, plain);
  return { changes, update: Object.keys(unset).length > 0 ? { $set: set, $unset: unset } : { $set: set } };
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
 * it in the list (keeping its other lists). A create that loses a race becomes an update.
 */
export async function upsertIntoList(store: Store, account: string, listId: number, input: ContactInput & { email: string }): Promise<ContactDoc> {
  if (!(await store.lists.findOne({ _id: `${account}:${listId}`, account }))) throw errors.notFound(`No list with id ${listId}`);
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await store.contacts.findOne({ account, email: normaliseEmail(input.email) });
    if (existing) {
      // One write: the changes, and the list. A lists array in the body replaces the contact's
      // lists; otherwise the list is added with $addToSet, so simultaneous upserts into
      // different lists all stay.
      const replaced = input.lists ? { ...input, lists: [...input.lists, listId] } : input;
      await checkReferences(store, account, replaced);
      const { update } = planUpdate(existing, replaced);
      if (!input.lists) update.$addToSet = { lists: listId };
      const updated = await store.contacts.findOneAndUpdate({ _id: existing._id, account }, update, { returnDocument: 'after' });
      if (updated) return updated;
      continue; // deleted meanwhile: create it
    }
    try {
      return await createContact(store, account, { ...input, lists: [...(input.lists ?? []), listId] });
    } catch (error) {
      if (!(error instanceof AppError && error.code === ErrorCode.Conflict)) throw error; // another request created it: update
    }
  }
  throw errors.unavailable('The contact is being changed by another request, please retry');
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
