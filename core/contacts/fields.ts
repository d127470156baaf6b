// Contact fields of an account: the built-in ones (ids 1–7, not stored, not changeable) and up
// to 200 custom ones (ids from 10). A field's tag names its substitution variable, so tags are
// unique in an account, built-in ones included. Values live on the contact
// (ContactDoc.customFields, by id), so deleting a field removes its value from every contact.
import { changedValues, type Page, type PageRequest } from '../../adapters/store/paging';
import { nextId } from '../../adapters/store/counters';
import { errors, fieldError } from '../shared/errors';
import { isDuplicateKey, type FieldDoc, type FieldFormat, type Store } from '../../adapters/store/store';

/** A field as the API shows it. */
export interface Field { id: number; name: string; tag: string; format: FieldFormat | 'EMAIL'; custom: boolean }

/** The original's built-in field ids (6, 8 and 9 are unknown: not found). */
export const BUILT_IN_FIELDS: readonly Field[] = [
  { id: 1, name: 'firstName', tag: 'FIRSTNAME', format: 'TEXT', custom: false },
  { id: 2, name: 'lastName', tag: 'LASTNAME', format: 'TEXT', custom: false },
  { id: 3, name: 'email', tag: 'EMAIL', format: 'EMAIL', custom: false },
  { id: 4, name: 'gender', tag: 'GENDER', format: 'TEXT', custom: false },
  { id: 5, name: 'language', tag: 'LANGUAGE', format: 'TEXT', custom: false },
  { id: 7, name: 'preferredFormat', tag: 'PREFERREDFORMAT', format: 'TEXT', custom: false },
];
export const FIRST_CUSTOM_FIELD_ID = 10;
export const MAX_CUSTOM_FIELDS = 200;
export const MAX_TAG_LENGTH = 50;

export interface FieldInput { name: string; tag?: string; format?: FieldFormat }

export function builtInField(id: number): Field | undefined {
  return BUILT_IN_FIELDS.find((f) => f.id === id);
}

/** "Número de cliente" → "NUMERODECLIENTE": the name upper-cased, accents dropped, only letters and digits. */
export function defaultTag(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, MAX_TAG_LENGTH);
}

export function customField(doc: FieldDoc): Field {
  return { id: doc.id, name: doc.name, tag: doc.tag, format: doc.format, custom: true };
}

function normalise<T extends Partial<FieldInput>>(input: T): T {
  return {
    ...input,
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.tag !== undefined ? { tag: input.tag.toUpperCase() } : {}),
  };
}

const tagTaken = (tag: string) =>
  errors.conflict('A field with this tag already exists', { tag: fieldError('invalid_value', `Tag ${tag} already in use in this account`) });

/**
 * RESOURCE_EXISTS when another field of the account (built-in or custom) has the tag. Checked first so a
 * refused create takes no id; the unique index on {account, tag} decides between simultaneous ones.
 */
async function checkTagFree(store: Store, account: string, tag: string, exceptId?: number): Promise<void> {
  const taken = BUILT_IN_FIELDS.some((f) => f.tag === tag)
    || (await store.fields.findOne({ account, tag, ...(exceptId !== undefined ? { id: { $ne: exceptId } } : {}) }, { projection: { _id: 1 } })) !== null;
  if (taken) throw tagTaken(tag);
}

/** A write that the unique {account, tag} index refused is RESOURCE_EXISTS, not a fault. */
async function uniqueTag<T>(tag: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isDuplicateKey(error)) throw tagTaken(tag);
    throw error;
  }
}

/**
 * Creates a custom field; the tag defaults to one made of the name. The 200-field limit is checked
 * before the insert (two creates at the same instant could make 201); the tag by the unique index.
 * `reservedId`: an id from nextFieldId taken beforehand (a migration records it before creating).
 */
export async function createField(store: Store, account: string, input: FieldInput, reservedId?: number): Promise<FieldDoc> {
  const { name, format = 'TEXT', tag = defaultTag(name) } = normalise(input);
  if (tag === '') throw errors.validation({ tag: fieldError('required', 'Give a tag: the name has no letters or digits to make one of') });
  if (await store.fields.countDocuments({ account }) >= MAX_CUSTOM_FIELDS) {
    throw errors.validation({ fields: fieldError('too_many_items', `At most ${MAX_CUSTOM_FIELDS} custom fields in an account`) });
  }
  await checkTagFree(store, account, tag);
  const id = reservedId ?? await nextFieldId(store, account);
  const now = new Date();
  const field: FieldDoc = { _id: `${account}:${id}`, account, id, name, tag, format, created: now, lastModified: now };
  await uniqueTag(tag, () => store.fields.insertOne(field));
  return field;
}

/** The next custom field id (from 10). */
export async function nextFieldId(store: Store, account: string): Promise<number> {
  return FIRST_CUSTOM_FIELD_ID - 1 + await nextId(store, account, 'fields');
}

/** A built-in or custom field by id. */
export async function findField(store: Store, account: string, id: number): Promise<Field | null> {
  if (id < FIRST_CUSTOM_FIELD_ID) return builtInField(id) ?? null;
  const doc = await findCustomField(store, account, id);
  return doc ? customField(doc) : null;
}

export function findCustomField(store: Store, account: string, id: number): Promise<FieldDoc | null> {
  return store.fields.findOne({ _id: `${account}:${id}`, account });
}

/**
 * A page of all fields, built-in and custom together. There are at most 207, so they are
 * searched, sorted and cut in memory: the built-in ones take their place in one order and paging.
 */
export async function findFields(store: Store, account: string, page: PageRequest): Promise<Page<Field>> {
  const custom = await store.fields.find({ account }).toArray();
  const pattern = page.q ? new RegExp(page.q.$regex, page.q.$options) : undefined;
  const all = [...BUILT_IN_FIELDS, ...custom.map(customField)].filter((f) => !pattern || pattern.test(f.name));
  const key = page.sortby as 'id' | 'name';
  const direction = page.sortdir === 'asc' ? 1 : -1;
  // Code-unit order, as MongoDB sorts strings; ties by id.
  all.sort((a, b) => (a[key] === b[key] ? a.id - b.id : (a[key] < b[key] ? -direction : direction)));
  return { items: all.slice(page.offset, page.offset + page.limit), total: all.length };
}

/** Applies what differs (name, tag); the format of a field never changes. Returns only what changed. */
export async function updateField(store: Store, field: FieldDoc, input: Partial<FieldInput>): Promise<Partial<FieldInput>> {
  if (input.format !== undefined && input.format !== field.format) {
    throw errors.validation({ format: fieldError('invalid_value', 'The format of a field cannot be changed') });
  }
  const changes = changedValues<FieldInput>(field, normalise({ name: input.name, tag: input.tag }));
  if (changes.tag !== undefined) await checkTagFree(store, field.account, changes.tag, field.id);
  if (Object.keys(changes).length > 0) {
    await uniqueTag(changes.tag ?? field.tag, () =>
      store.fields.updateOne({ _id: field._id, account: field.account }, { $set: { ...changes, lastModified: new Date() } }));
  }
  return changes;
}

/** Deletes a custom field, then its value on every contact (ids are never reused: see deleteList). */
export async function deleteField(store: Store, account: string, id: number): Promise<boolean> {
  const { deletedCount } = await store.fields.deleteOne({ _id: `${account}:${id}`, account });
  if (deletedCount === 0) return false;
  const path = `customFields.${id}`;
  await store.contacts.updateMany({ account, [path]: { $exists: true } }, { $unset: { [path]: '' } });
  return true;
}
