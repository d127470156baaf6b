// The documents and updates that contact writes send, built from what the API validated: a new
// contact, a partial update of a known one, and the one upsert that creates or updates a contact
// by email without reading it first. Pure: no store access here.
import type { AnyBulkWriteOperation, UpdateFilter } from 'mongodb';
import type { ContactDoc } from '../../adapters/store/store';
import { normaliseEmail } from '../accounts/users';

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

/** The plain fields a client may give, and what a new contact has when it does not. */
const DEFAULTS = { firstName: '', lastName: '', gender: '', language: '', preferredFormat: 'HTML' } as const;
const PLAIN = Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>;

/** A new contact (state ACTIVE) with the given id; custom fields with an empty value are left out. */
export function newContact(account: string, id: number, input: ContactInput & { email: string }, source: string, now: Date): ContactDoc {
  return {
    _id: `${account}:${id}`,
    account,
    id,
    email: normaliseEmail(input.email),
    ...DEFAULTS,
    ...Object.fromEntries(PLAIN.filter((key) => input[key] !== undefined).map((key) => [key, input[key]])),
    source,
    state: 'ACTIVE',
    quality: 0,
    lists: [...new Set(input.lists ?? [])],
    interests: [...new Set(input.interests ?? [])].map((interest) => ({ id: interest, subscribed: now })),
    customFields: Object.fromEntries(lastValues(input.customFields).filter(([, value]) => value !== '')),
    created: now,
    lastModified: now,
    lastMailed: null,
    lastAction: null,
    inactivated: null,
  };
}

/** Custom field values by field id; when a field is given twice, the last value counts. */
function lastValues(customFields: ContactInput['customFields']): Array<[string, string]> {
  return [...new Map((customFields ?? []).map(({ id, value }) => [String(id), value]))];
}

/** `$set`/`$unset` of one path per custom field given (an empty value clears it). */
function customFieldPaths(customFields: ContactInput['customFields']) {
  const set: Record<string, string> = {};
  const unset: Record<string, ''> = {};
  for (const [id, value] of lastValues(customFields)) {
    if (value === '') unset[`customFields.${id}`] = '';
    else set[`customFields.${id}`] = value;
  }
  return { set, unset };
}

/**
 * What a partial update changes, and the MongoDB update that writes it. `interests` and `lists`,
 * when given, replace the contact's own (interests kept keep their subscription date); custom
 * fields given are set one path each (an empty value clears one), so simultaneous updates of
 * different fields all stay. The email never changes.
 */
export function planUpdate(contact: ContactDoc, input: ContactInput): { changes: Partial<ContactDoc>; update: UpdateFilter<ContactDoc> } {
  const changes: Partial<ContactDoc> = {};
  for (const key of PLAIN) {
    if (input[key] !== undefined && input[key] !== contact[key]) Object.assign(changes, { [key]: input[key] });
  }
  if (input.lists) changes.lists = [...new Set(input.lists)];
  if (input.interests) {
    const since = new Map(contact.interests.map((i) => [i.id, i.subscribed]));
    const now = new Date();
    changes.interests = [...new Set(input.interests)].map((id) => ({ id, subscribed: since.get(id) ?? now }));
  }
  const { set, unset } = customFieldPaths(input.customFields);
  if (input.customFields?.length) {
    const values = { ...contact.customFields };
    for (const [id, value] of lastValues(input.customFields)) {
      if (value === '') delete values[id];
      else values[id] = value;
    }
    changes.customFields = values;
  }
  changes.lastModified = new Date();
  const { customFields: _whole, ...plain } = changes;
  const $set = { ...set, ...plain };
  return { changes, update: Object.keys(unset).length > 0 ? { $set, $unset: unset } : { $set } };
}

/**
 * Whether an upsert needs the stored contact, so cannot be one write (planUpsert): interests
 * replace the contact's own keeping their dates, and custom fields that only clear values would
 * leave a new contact without its customFields object.
 */
export function upsertNeedsStoredContact(input: ContactInput): boolean {
  const { set, unset } = customFieldPaths(input.customFields);
  return input.interests !== undefined || (Object.keys(unset).length > 0 && Object.keys(set).length === 0);
}

/**
 * POST /lists/{id}/contacts as one write: a findOneAndUpdate upsert on the account's email (its
 * unique index decides between simultaneous creates), whose $setOnInsert makes a new contact
 * with `id`, and whose $set/$addToSet are the update of an existing one. The list is added with
 * $addToSet, so simultaneous upserts into different lists all stay; a `lists` array replaces the
 * contact's lists (the list included). Only for inputs where upsertNeedsStoredContact is false.
 */
export function planUpsert(
  account: string, id: number, listId: number, input: ContactInput & { email: string }, source: string, now: Date,
): { filter: { account: string; email: string }; update: UpdateFilter<ContactDoc> } {
  const { set: fieldValues, unset } = customFieldPaths(input.customFields);
  const set: Record<string, unknown> = { ...fieldValues, lastModified: now };
  const onInsert: Record<string, unknown> = {
    _id: `${account}:${id}`, id, source, state: 'ACTIVE', quality: 0, interests: [],
    created: now, lastMailed: null, lastAction: null, inactivated: null,
  };
  for (const key of PLAIN) {
    if (input[key] !== undefined) set[key] = input[key];
    else onInsert[key] = DEFAULTS[key];
  }
  // No path of customFields is set: a new contact gets the empty object (an existing one keeps its own).
  if (Object.keys(fieldValues).length === 0) onInsert.customFields = {};
  if (input.lists) set.lists = [...new Set([...input.lists, listId])];
  const update: UpdateFilter<ContactDoc> = { $set: set, $setOnInsert: onInsert };
  if (Object.keys(unset).length > 0) update.$unset = unset;
  if (!input.lists) update.$addToSet = { lists: listId };
  return { filter: { account, email: normaliseEmail(input.email) }, update };
}

/**
 * The writes that give each existing contact (by email) its interests dated `now`, whether it had
 * them or not (a renewal), keeping its others: a $pull then a $push per contact, since one update
 * cannot do both to one array. Run them in order (`ordered: true`).
 */
export function interestRenewals(account: string, contacts: Array<{ email: string; interests: number[] }>, now: Date): Array<AnyBulkWriteOperation<ContactDoc>> {
  return contacts.flatMap(({ email, interests }): Array<AnyBulkWriteOperation<ContactDoc>> => {
    const ids = [...new Set(interests)];
    if (ids.length === 0) return [];
    const filter = { account, email };
    return [
      { updateOne: { filter, update: { $pull: { interests: { id: { $in: ids } } } } } },
      { updateOne: { filter, update: { $push: { interests: { $each: ids.map((id) => ({ id, subscribed: now })) } } } } },
    ];
  });
}
