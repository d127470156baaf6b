import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  contactContext, createContactWithContext, deleteContact, findContact, findContacts, setMembership, unsubscribe, updateContact,
  upsertIntoListWithContext, type ContactContext, type ContactInput,
} from '../../core/contacts/contacts';
import { errors, fieldError, type FieldError } from '../../core/shared/errors';
import type { ContactDoc, Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { asBody, validator } from '../validation';
import { requirePermission } from './auth';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';
import { integerParam } from './params';

const name = { type: 'string', maxLength: 100 } as const;
/** A list or interest as clients send it: an id, a numeric string, or an object with an id (extra keys ignored). */
const reference = { type: ['integer', 'string', 'object'] } as const;
const contactSchema = (required: string[]) => ({
  type: 'object',
  additionalProperties: false, // fields a client sends back from a GET (id, state, created…) are ignored
  required,
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254 },
    firstName: name,
    lastName: name,
    gender: { type: 'string', enum: ['', 'M', 'F', 'm', 'f'] },
    language: { type: 'string', enum: ['', 'de', 'en', 'es', 'fr', 'it', 'pt'] },
    preferredFormat: { type: 'string', enum: ['HTML', 'TEXT', 'TXT'] },
    customFields: {
      type: 'array', maxItems: 200,
      items: { type: 'object', required: ['id'], properties: { id: { type: ['integer', 'string'] }, value: { type: ['string', 'number', 'boolean', 'null'] } } },
    },
    interests: { type: 'array', maxItems: 1000, items: reference },
    lists: { type: 'array', maxItems: 1000, items: reference },
  },
});

type RawContact = Omit<ContactInput, 'customFields' | 'interests' | 'lists' | 'gender' | 'preferredFormat'> & {
  gender?: string; preferredFormat?: string;
  customFields?: Array<{ id: number | string; value?: string | number | boolean | null }>;
  interests?: unknown[]; lists?: unknown[];
};
const createSchema = contactSchema(['email']);
const updateSchema = contactSchema([]);
const validateCreate = validator<RawContact & { email: string }>(createSchema);
const validateUpdate = validator<RawContact>(updateSchema);

/** Ids of `lists`/`interests` in any of the shapes clients send; field errors for the rest. */
function idsOf(items: unknown[] | undefined, field: string, problems: Record<string, FieldError>): number[] | undefined {
  if (!items) return undefined;
  return items.flatMap((item, i) => {
    const raw = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : item;
    const id = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(id) || id < 1) {
      problems[`${field}[${i}]`] = fieldError('invalid_value', 'Must be an id (or an object with an id)');
      return [];
    }
    return [id];
  });
}

/** The validated body as the domain's input; nulls mean absent. */
function toInput(body: unknown, validate: (value: unknown) => RawContact): ContactInput {
  const present: Record<string, unknown> = asBody(Object.fromEntries(Object.entries((body ?? {}) as object).filter(([, v]) => v !== null)), body);
  if (typeof present.email === 'string') present.email = present.email.trim(); // pasted addresses carry spaces
  const raw = validate(present);
  const problems: Record<string, FieldError> = {};
  const customFields = raw.customFields?.flatMap(({ id, value }, i) => {
    const n = typeof id === 'number' ? id : /^\d{1,9}$/.test(id) ? Number(id) : NaN;
    if (!Number.isInteger(n)) {
      problems[`customFields[${i}].id`] = fieldError('invalid_value', 'Must be a custom field id');
      return [];
    }
    return [{ id: n, value: value === null || value === undefined ? '' : String(value) }];
  });
  const input: ContactInput = {
    ...raw,
    gender: raw.gender?.toUpperCase() as ContactInput['gender'],
    preferredFormat: raw.preferredFormat === undefined ? undefined : raw.preferredFormat === 'HTML' ? 'HTML' : 'TEXT',
    customFields,
    interests: idsOf(raw.interests, 'interests', problems),
    lists: idsOf(raw.lists, 'lists', problems),
  };
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  for (const key of Object.keys(input) as Array<keyof ContactInput>) if (input[key] === undefined) delete input[key];
  return input;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * The full contact record of the original (lists and interests with names, every custom field).
 * `known`: what the request read already (only the rest is read).
 */
async function contactView(store: Store, contact: ContactDoc, known?: ContactContext) {
  const { listNames, interestNames, fields } = await contactContext(store, contact, known);
  return {
    id: contact.id,
    email: contact.email,
    firstName: contact.firstName,
    lastName: contact.lastName,
    gender: contact.gender,
    language: contact.language,
    preferredFormat: contact.preferredFormat,
    source: contact.source,
    state: contact.state,
    quality: contact.quality,
    lastMailed: iso(contact.lastMailed),
    lastAction: iso(contact.lastAction),
    created: iso(contact.created),
    lastModified: iso(contact.lastModified),
    inactivated: iso(contact.inactivated),
    lists: contact.lists.filter((id) => listNames.has(id)).map((id) => ({ id, name: listNames.get(id) })),
    interests: contact.interests.filter((i) => interestNames.has(i.id)).map((i) => ({ id: i.id, name: interestNames.get(i.id), subscribed: iso(i.subscribed) })),
    customFields: [...fields.values()].sort((a, b) => a.id - b.id)
      .map((f) => ({ id: f.id, name: f.name, format: f.format, value: contact.customFields[String(f.id)] ?? '' })),
  };
}

/** Only what changed, in the record's own shapes (the original's PUT answer). */
async function changedView(store: Store, contact: ContactDoc, changes: Partial<ContactDoc>) {
  const full = await contactView(store, contact);
  const keys = Object.keys(changes) as Array<keyof typeof full>;
  return { id: contact.id, ...Object.fromEntries(keys.filter((k) => k in full).map((k) => [k, full[k]])) };
}

const STATES: Record<string, object> = {
  active: { state: 'ACTIVE' }, unsubscribed: { state: 'UNSUBSCRIBED' }, bounced: { state: 'BOUNCED' },
  complained: { state: 'COMPLAINED' }, compained: { state: 'COMPLAINED' }, // the original's documented typo
  inactive: { inactivated: { $ne: null } },
};
const positiveId = (value: string) => {
  if (!/^\d{1,9}$/.test(value)) throw new Error('Must be an id');
  return Number(value);
};
const LIST: ListSpec = {
  // lastModified is Herald's addition (the original sorts by email and quality): the recently changed first, as a migration's re-run asks.
  sortFields: ['email', 'quality', 'lastModified'],
  defaultDir: 'asc',
  defaultLimit: 20,
  filters: {
    state: (value) => {
      const condition = STATES[value.toLowerCase()];
      if (!condition) throw new Error(`Must be one of: ${Object.keys(STATES).join(', ')}`);
      return condition;
    },
    domain: (value) => {
      if (!/^[A-Za-z0-9.-]{1,253}$/.test(value)) throw new Error('Must be a domain name');
      return { email: { $regex: `@${value.toLowerCase().replace(/[.-]/g, '\\$&')}$` } };
    },
    interest: (value) => ({ 'interests.id': positiveId(value) }),
    list: (value) => ({ lists: positiveId(value) }),
  },
  unprefixedFilters: ['state'],
  filterDescriptions: {
    state: `One of ${Object.keys(STATES).join(', ')}, in any letter case.`,
    domain: 'The domain of the email.',
    interest: 'The id of an interest the contact has.',
    list: 'The id of a list the contact is on.',
  },
};

async function loadContact(store: Store, ctx: Context): Promise<ContactDoc> {
  const contact = await findContact(store, ctx.params.account, ctx.params.ref);
  if (!contact) throw errors.notFound('No such contact');
  return contact;
}

/** Contacts (`/v2/{account}/contacts…` and `/lists/{id}/contacts`), addressed by id or email. */
export function contactRoutes(router: Router, store: Store): void {
  router.get('/contacts', requirePermission('contacts:list'), async (ctx) => {
    const options = parseListOptions(ctx, LIST);
    const { items, total } = await findContacts(store, ctx.params.account, Object.values(options.filters) as object[], options);
    replyPage(ctx, options, items.map((c) => ({ id: c.id, email: c.email, firstName: c.firstName, lastName: c.lastName, state: c.state, quality: c.quality })), total);
  });

  router.post('/contacts', requirePermission('contacts:create'), async (ctx) => {
    const input = toInput(ctx.request.body, validateCreate) as ContactInput & { email: string };
    const { contact, context } = await createContactWithContext(store, ctx.params.account, input, 'MANUAL', { allFields: true });
    reply(ctx, { data: await contactView(store, contact, context) }); // 200, as the original answers a contact create
  });

  router.post('/lists/:listId/contacts', requirePermission('contacts:create'), requirePermission('contacts:update'), async (ctx) => {
    const input = toInput(ctx.request.body, validateCreate) as ContactInput & { email: string };
    const { contact, context } = await upsertIntoListWithContext(store, ctx.params.account, integerParam(ctx, 'listId'), input, { allFields: true });
    reply(ctx, { data: await contactView(store, contact, context) });
  });

  router.get('/contacts/:ref', requirePermission('contacts:list'), async (ctx) => {
    reply(ctx, { data: await contactView(store, await loadContact(store, ctx)) });
  });

  router.put('/contacts/:ref', requirePermission('contacts:update'), async (ctx) => {
    const contact = await loadContact(store, ctx);
    const input = toInput(ctx.request.body, validateUpdate);
    if (input.email !== undefined && input.email.toLowerCase() !== contact.email) {
      throw errors.validation({ email: fieldError('invalid_value', 'The email of a contact cannot change') });
    }
    const changes = await updateContact(store, contact, input);
    reply(ctx, { data: await changedView(store, contact, changes) });
  });

  router.delete('/contacts/:ref', requirePermission('contacts:delete'), async (ctx) => {
    await deleteContact(store, await loadContact(store, ctx));
    reply(ctx, {});
  });

  for (const kind of ['lists', 'interests'] as const) {
    const path = `/contacts/:ref/${kind}/:memberId`;
    const membership = (member: boolean) => async (ctx: Context) => {
      const contact = await loadContact(store, ctx);
      const changes = await setMembership(store, contact, kind, integerParam(ctx, 'memberId'), member);
      Object.assign(contact, changes);
      reply(ctx, { data: await changedView(store, contact, changes) });
    };
    router.put(path, requirePermission('contacts:update'), membership(true));
    router.delete(path, requirePermission('contacts:update'), membership(false));
  }

  router.post('/contacts/:ref/unsubscribe', requirePermission('contacts:update'), async (ctx) => {
    const contact = await loadContact(store, ctx);
    const changes = await unsubscribe(store, contact);
    reply(ctx, { data: { id: contact.id, state: changes.state } });
  });
}

const record = 'The full contact: lists and interests with their names, every custom field with its value or `""`';
const changed = 'The id and what changed';

export const contactOperations = accountResource('Contacts', [
  {
    method: 'get', path: '/v2/{account}/contacts', id: 'listContacts', summary: 'Contacts of the account', permissions: ['contacts:list'],
    listing: { spec: LIST, q: 'the email' }, status: 200, response: 'A page of contacts: id, email, names, state, quality',
  },
  {
    method: 'post', path: '/v2/{account}/contacts', id: 'createContact', nullMeansAbsent: 'top', summary: 'Create a contact', permissions: ['contacts:create'],
    description: 'Emails are trimmed and lowercased. A taken email is 409 `RESOURCE_EXISTS`, with `validationErrors.email` and the existing `data.id`.',
    body: createSchema, status: 200, response: record, errors: [409],
  },
  {
    method: 'post', path: '/v2/{account}/lists/{listId}/contacts', id: 'upsertContactIntoList', nullMeansAbsent: 'top', summary: 'Create or update a contact, and add it to the list',
    description: 'Updates the contact with that email when there is one.', permissions: ['contacts:create', 'contacts:update'],
    body: createSchema, status: 200, response: record,
  },
  { method: 'get', path: '/v2/{account}/contacts/{ref}', id: 'getContact', summary: 'A contact', permissions: ['contacts:list'], status: 200, response: record },
  {
    method: 'put', path: '/v2/{account}/contacts/{ref}', id: 'updateContact', nullMeansAbsent: 'top', summary: 'Change a contact',
    description: 'An `interests` or `lists` array replaces the contact\'s own. The email cannot change.', permissions: ['contacts:update'],
    body: updateSchema, status: 200, response: changed,
  },
  { method: 'delete', path: '/v2/{account}/contacts/{ref}', id: 'deleteContact', summary: 'Delete a contact', permissions: ['contacts:delete'], status: 200, response: 'Deleted' },
  {
    method: 'put', path: '/v2/{account}/contacts/{ref}/lists/{memberId}', id: 'addContactToList', summary: 'Add a contact to one list',
    permissions: ['contacts:update'], status: 200, response: changed,
  },
  {
    method: 'delete', path: '/v2/{account}/contacts/{ref}/lists/{memberId}', id: 'removeContactFromList', summary: 'Take a contact off one list',
    permissions: ['contacts:update'], status: 200, response: changed,
  },
  {
    method: 'put', path: '/v2/{account}/contacts/{ref}/interests/{memberId}', id: 'addContactInterest', summary: 'Give a contact one interest',
    permissions: ['contacts:update'], status: 200, response: changed,
  },
  {
    method: 'delete', path: '/v2/{account}/contacts/{ref}/interests/{memberId}', id: 'removeContactInterest', summary: 'Take one interest off a contact',
    permissions: ['contacts:update'], status: 200, response: changed,
  },
  {
    method: 'post', path: '/v2/{account}/contacts/{ref}/unsubscribe', id: 'unsubscribeContact', summary: 'Unsubscribe a contact',
    description: 'State `UNSUBSCRIBED`; no API call brings it back.', permissions: ['contacts:update'], status: 200, response: 'The id and the new state',
  },
]);
