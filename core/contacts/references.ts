// What a contact refers to: its lists, interests and the account's custom fields. Read once per
// request and used twice: to check what a client sends, then to show the record (names of lists
// and interests, every custom field), so a request reads each of them at most once.
import { errors, fieldError, type FieldError } from '../shared/errors';
import { byId, ReadBatch } from '../../adapters/batching/read-batch';
import { perStore } from '../../adapters/store/per-store';
import type { ContactDoc, FieldDoc, Store } from '../../adapters/store/store';

/** The references a request names, as far as read: `fields` is every custom field of the account. */
export interface ContactContext {
  listNames: Map<number, string>;
  interestNames: Map<number, string>;
  fields?: Map<number, FieldDoc>;
}

/** What checkReferences looks at (a ContactInput, or any input with these fields). */
export interface ReferencedIds {
  lists?: number[];
  interests?: number[];
  customFields?: Array<{ id: number; value: string }>;
}

interface Named { _id: string; account: string; id: number; name: string }

/**
 * Batched lookups (adapters/batching/read-batch.ts): lists and interests by `_id`, which a unique index
 * answers and which names the account (`<account>:<id>`, checked again on every document read),
 * and the custom fields of each account asked for.
 */
const lookups = perStore((store) => {
  const named = (collection: 'lists' | 'interests') =>
    byId((ids) => store[collection].find({ _id: { $in: ids } }).project<Named>({ account: 1, id: 1, name: 1 }).toArray());
  return {
    lists: named('lists'),
    interests: named('interests'),
    fields: new ReadBatch<string, FieldDoc[]>(async (accounts) => {
      const byAccount = new Map<string, FieldDoc[]>();
      // An account has at most 200 custom fields (core/contacts/fields.ts); the limit only bounds a surprise.
      for (const field of await store.fields.find({ account: { $in: accounts } }).limit(1000 * accounts.length).toArray()) {
        byAccount.set(field.account, [...(byAccount.get(field.account) ?? []), field]);
      }
      return byAccount;
    }),
  };
});

/** The custom fields of the account, by id: for validating values and showing names. */
export async function customFieldsOf(store: Store, account: string): Promise<Map<number, FieldDoc>> {
  const fields = await lookups(store).fields.get(account) ?? [];
  return new Map(fields.filter((f) => f.account === account).map((f) => [f.id, { ...f }]));
}

/** Names of the account's lists or interests among `ids` (the ones that exist). */
async function namesOf(store: Store, collection: 'lists' | 'interests', account: string, ids: number[]): Promise<Map<number, string>> {
  const found = await Promise.all([...new Set(ids)].map((id) => lookups(store)[collection].get(`${account}:${id}`)));
  return new Map(found.filter((d): d is Named => d?.account === account).map((d) => [d.id, d.name]));
}

/**
 * Reads, in parallel, the lists and interests `input` names and the custom fields (when values
 * are given, or when `allFields`: the record shows every one).
 */
export async function readReferences(store: Store, account: string, input: ReferencedIds, options: { allFields?: boolean } = {}): Promise<ContactContext> {
  const [listNames, interestNames, fields] = await Promise.all([
    namesOf(store, 'lists', account, input.lists ?? []),
    namesOf(store, 'interests', account, input.interests ?? []),
    input.customFields?.length || options.allFields ? customFieldsOf(store, account) : undefined,
  ]);
  return { listNames, interestNames, ...(fields ? { fields } : {}) };
}

/** Throws one VALIDATION_ERROR naming every missing reference and every value that does not fit its field. */
export function validateReferences(input: ReferencedIds, context: ContactContext): void {
  const problems: Record<string, FieldError> = {};
  const missing = (ids: number[] | undefined, names: Map<number, string>, collection: string, label: string) => {
    ids?.forEach((id, i) => { if (!names.has(id)) problems[`${collection}[${i}]`] ??= fieldError('invalid_value', `No ${label} with id ${id}`); });
  };
  missing(input.lists, context.listNames, 'lists', 'list');
  missing(input.interests, context.interestNames, 'interests', 'interest');
  input.customFields?.forEach(({ id, value }, i) => {
    const field = context.fields?.get(id);
    if (!field) problems[`customFields[${i}].id`] = fieldError('invalid_value', `No custom field with id ${id}`);
    else if (value !== '' && !fitsFormat(value, field.format)) {
      problems[`customFields[${i}].value`] = fieldError('invalid_value', `Not a valid ${field.format} for the field ${field.name}`);
    }
  });
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
}

/**
 * Checks that every referenced list, interest and custom field exists and that each custom
 * value fits its field's format; throws one VALIDATION_ERROR naming every problem. Returns what
 * it read, for the record's view (contactContext).
 */
export async function checkReferences(store: Store, account: string, input: ReferencedIds, options: { allFields?: boolean } = {}): Promise<ContactContext> {
  const context = await readReferences(store, account, input, options);
  validateReferences(input, context);
  return context;
}

const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** INT: an integer; DATE: an ISO 8601 date or date-time, with `Z` or a `±hh[:]mm` offset. */
export function fitsFormat(value: string, format: FieldDoc['format']): boolean {
  if (format === 'INT') return /^-?\d{1,15}$/.test(value);
  if (format === 'DATE') return DATE.test(value) && !Number.isNaN(Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2').replace(' ', 'T')));
  return value.length <= 1000;
}

/**
 * What a contact's record shows beside its own fields: the names of its lists and interests, and
 * every custom field. Only what `known` (read earlier in the request) lacks is read now.
 */
export async function contactContext(store: Store, contact: ContactDoc, known?: ContactContext): Promise<Required<ContactContext>> {
  const unknown = (ids: number[], names?: Map<number, string>) => ids.filter((id) => !names?.has(id));
  const [lists, interests, fields] = await Promise.all([
    namesOf(store, 'lists', contact.account, unknown(contact.lists, known?.listNames)),
    namesOf(store, 'interests', contact.account, unknown(contact.interests.map((i) => i.id), known?.interestNames)),
    known?.fields ?? customFieldsOf(store, contact.account),
  ]);
  return {
    listNames: new Map([...(known?.listNames ?? []), ...lists]),
    interestNames: new Map([...(known?.interestNames ?? []), ...interests]),
    fields,
  };
}
