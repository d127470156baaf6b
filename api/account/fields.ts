import type Router from '@koa/router';
import type { Context } from 'koa';
import { errors } from '../../core/shared/errors';
import {
  builtInField, createField, customField, deleteField, findCustomField, findField, findFields, MAX_TAG_LENGTH, updateField, type FieldInput,
} from '../../core/contacts/fields';
import type { FieldDoc, Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';
import { integerParam } from './params';
import { name } from './schemas';

/** The substitution variable's name: letters, digits and _ (stored upper case). */
const tag = { type: 'string', minLength: 1, maxLength: MAX_TAG_LENGTH, pattern: '^[A-Za-z0-9_]+$' } as const;
const format = { type: 'string', enum: ['TEXT', 'INT', 'DATE'] } as const;
const createSchema = { type: 'object', additionalProperties: false, required: ['name'], properties: { name, tag, format } } as const;
// format is accepted only unchanged (a client may PUT back the record it read).
const updateSchema = { type: 'object', additionalProperties: false, properties: { name, tag, format } } as const;
const validateCreate = validator<FieldInput>(createSchema);
const validateUpdate = validator<Partial<FieldInput>>(updateSchema);

const LIST: ListSpec = { sortFields: ['id', 'name'], defaultDir: 'asc', defaultLimit: 20 };

/** The id of a field to modify or delete (NaN when not an id); a built-in one is refused. */
function changeableFieldId(ctx: Context): number {
  const id = integerParam(ctx);
  if (builtInField(id)) {
    // A request error whoever sends it, so 400 rather than 403 (which means a missing permission).
    throw errors.badRequest(`Field ${id} is a built-in field: it cannot be modified or deleted`);
  }
  return id;
}

async function loadCustomField(store: Store, ctx: Context): Promise<FieldDoc> {
  const id = changeableFieldId(ctx);
  const field = Number.isNaN(id) ? null : await findCustomField(store, ctx.params.account, id);
  if (!field) throw errors.notFound('No such field');
  return field;
}

/** Contact fields, built-in and custom (`/v2/{account}/fields…`). */
export function fieldRoutes(router: Router, store: Store): void {
  router.get('/fields', requirePermission('fields:list'), async (ctx) => {
    const options = parseListOptions(ctx, LIST);
    const { items, total } = await findFields(store, ctx.params.account, options);
    replyPage(ctx, options, items, total);
  });

  router.post('/fields', requirePermission('fields:create'), async (ctx) => {
    const field = await createField(store, ctx.params.account, validateCreate(ctx.request.body ?? {}));
    reply(ctx, { status: 201, data: customField(field), location: `/v2/${field.account}/fields/${field.id}` });
  });

  router.get('/fields/:id', requirePermission('fields:list'), async (ctx) => {
    const id = integerParam(ctx);
    const field = Number.isNaN(id) ? null : await findField(store, ctx.params.account, id);
    if (!field) throw errors.notFound('No such field');
    reply(ctx, { data: field });
  });

  router.put('/fields/:id', requirePermission('fields:update'), async (ctx) => {
    const field = await loadCustomField(store, ctx);
    const changes = await updateField(store, field, validateUpdate(ctx.request.body ?? {}));
    reply(ctx, { data: { id: field.id, ...changes } });
  });

  router.delete('/fields/:id', requirePermission('fields:delete'), async (ctx) => {
    const id = changeableFieldId(ctx);
    if (Number.isNaN(id) || !(await deleteField(store, ctx.params.account, id))) throw errors.notFound('No such field');
    reply(ctx, {});
  });
}

const builtIn = 'Built-in fields cannot be modified or deleted (400).';

export const fieldOperations = accountResource('Fields', [
  {
    method: 'get', path: '/v2/{account}/fields', id: 'listFields', summary: 'Contact fields, built-in and custom', permissions: ['fields:list'],
    listing: { spec: LIST, q: 'the name' }, status: 200, response: 'A page of fields',
  },
  {
    method: 'post', path: '/v2/{account}/fields', id: 'createField', summary: 'Create a custom field', permissions: ['fields:create'],
    description: 'The tag is unique in the account (409 when taken); by default the name upper-cased, letters and digits only.',
    body: createSchema, status: 201, location: true, response: 'The field', errors: [409],
  },
  { method: 'get', path: '/v2/{account}/fields/{id}', id: 'getField', summary: 'A field', permissions: ['fields:list'], status: 200, response: 'The field' },
  {
    method: 'put', path: '/v2/{account}/fields/{id}', id: 'updateField', summary: 'Change a custom field\'s name or tag',
    description: `The format cannot change. ${builtIn}`, permissions: ['fields:update'],
    body: updateSchema, status: 200, response: 'The id and what changed', errors: [409],
  },
  {
    method: 'delete', path: '/v2/{account}/fields/{id}', id: 'deleteField', summary: 'Delete a custom field, and its value on every contact',
    description: builtIn, permissions: ['fields:delete'], status: 200, response: 'Deleted', errors: [400],
  },
]);
