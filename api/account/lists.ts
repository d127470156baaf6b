import type Router from '@koa/router';
import type { Context } from 'koa';
import { errors } from '../../core/shared/errors';
import { contactCounts, createList, deleteList, findList, findLists, updateList, type ContactCounts, type ListInput } from '../../core/contacts/lists';
import type { ListDoc, Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';
import { integerParam } from './params';
import { description, name } from './schemas';

const tags = { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 50 } } as const;
const createSchema = { type: 'object', additionalProperties: false, required: ['name'], properties: { name, description, tags } } as const;
const updateSchema = { type: 'object', additionalProperties: false, properties: { name, description, tags } } as const;
const validateCreate = validator<ListInput>(createSchema);
const validateUpdate = validator<Partial<ListInput>>(updateSchema);

const LIST: ListSpec = { sortFields: ['name', 'created', 'lastMailed'], defaultDir: 'asc', defaultLimit: 10 };

/** The list as the original shows it; quality is 0 until contacts are scored. */
function listView(list: ListDoc, counts: ContactCounts) {
  return {
    id: list.id, name: list.name, description: list.description,
    created: list.created.toISOString(), lastMailed: list.lastMailed?.toISOString() ?? null,
    ...counts, quality: 0, tags: list.tags,
  };
}

async function withCounts(store: Store, account: string, lists: ListDoc[]) {
  if (lists.length === 0) return [];
  const counts = await contactCounts(store, account, lists.map((l) => l.id));
  return lists.map((list) => listView(list, counts.get(list.id)!));
}

async function loadList(store: Store, ctx: Context): Promise<ListDoc> {
  const id = integerParam(ctx);
  const list = Number.isNaN(id) ? null : await findList(store, ctx.params.account, id);
  if (!list) throw errors.notFound('No such list');
  return list;
}

/** Lists of contacts (`/v2/{account}/lists…`). */
export function listRoutes(router: Router, store: Store): void {
  router.get('/lists', requirePermission('lists:list'), async (ctx) => {
    const options = parseListOptions(ctx, LIST);
    const { items, total } = await findLists(store, ctx.params.account, options);
    replyPage(ctx, options, await withCounts(store, ctx.params.account, items), total);
  });

  router.post('/lists', requirePermission('lists:create'), async (ctx) => {
    const list = await createList(store, ctx.params.account, validateCreate(ctx.request.body ?? {}));
    // 201 with a Location, as the original answers a list create.
    reply(ctx, { status: 201, data: listView(list, { activeContacts: 0, totalContacts: 0 }), location: `/v2/${list.account}/lists/${list.id}` });
  });

  router.get('/lists/:id', requirePermission('lists:list'), async (ctx) => {
    reply(ctx, { data: (await withCounts(store, ctx.params.account, [await loadList(store, ctx)]))[0] });
  });

  router.put('/lists/:id', requirePermission('lists:update'), async (ctx) => {
    const list = await loadList(store, ctx);
    const changes = await updateList(store, list, validateUpdate(ctx.request.body ?? {}));
    reply(ctx, { data: { id: list.id, ...changes } });
  });

  router.delete('/lists/:id', requirePermission('lists:delete'), async (ctx) => {
    const id = integerParam(ctx);
    if (Number.isNaN(id) || !(await deleteList(store, ctx.params.account, id))) throw errors.notFound('No such list');
    reply(ctx, {});
  });
}

export const listOperations = accountResource('Lists', [
  {
    method: 'get', path: '/v2/{account}/lists', id: 'listLists', summary: 'Lists of the account', permissions: ['lists:list'],
    listing: { spec: LIST, q: 'the name' }, status: 200, response: 'A page of lists, with their contact counts',
  },
  {
    method: 'post', path: '/v2/{account}/lists', id: 'createList', summary: 'Create a list', permissions: ['lists:create'],
    body: createSchema, status: 201, location: true, response: 'The list',
  },
  { method: 'get', path: '/v2/{account}/lists/{id}', id: 'getList', summary: 'A list', permissions: ['lists:list'], status: 200, response: 'The list' },
  {
    method: 'put', path: '/v2/{account}/lists/{id}', id: 'updateList', summary: 'Change a list', permissions: ['lists:update'],
    body: updateSchema, status: 200, response: 'The id and what changed',
  },
  {
    method: 'delete', path: '/v2/{account}/lists/{id}', id: 'deleteList', summary: 'Delete a list, taking it off every contact',
    permissions: ['lists:delete'], status: 200, response: 'Deleted',
  },
]);
