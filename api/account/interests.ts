import type Router from '@koa/router';
import type { Context } from 'koa';
import { errors } from '../../core/shared/errors';
import { createInterest, deleteInterest, findInterest, findInterests, updateInterest, type InterestInput } from '../../core/contacts/interests';
import type { InterestDoc, Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';
import { integerParam } from './params';
import { description, name } from './schemas';

/** Days after which the interest leaves a contact; 0 = never. At most 100 years. */
const expirationDays = { type: 'integer', minimum: 0, maximum: 36500 } as const;
const createSchema = {
  type: 'object', additionalProperties: false, required: ['name'], properties: { name, description, expirationDays },
} as const;
const updateSchema = { type: 'object', additionalProperties: false, properties: { name, description, expirationDays } } as const;
const validateCreate = validator<InterestInput>(createSchema);
const validateUpdate = validator<Partial<InterestInput>>(updateSchema);

/** Form bodies, and the original's own doc, send expirationDays as a string of digits. */
function numericDays(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const days = (body as { expirationDays?: unknown }).expirationDays;
  return typeof days === 'string' && /^\d{1,9}$/.test(days) ? { ...body, expirationDays: Number(days) } : body;
}

const LIST: ListSpec = { sortFields: ['name', 'created', 'lastMailed'], defaultDir: 'asc', defaultLimit: 10 };

function interestView(interest: InterestDoc) {
  return {
    id: interest.id, name: interest.name, description: interest.description, expirationDays: interest.expirationDays,
    created: interest.created.toISOString(),
  };
}

async function loadInterest(store: Store, ctx: Context): Promise<InterestDoc> {
  const id = integerParam(ctx);
  const interest = Number.isNaN(id) ? null : await findInterest(store, ctx.params.account, id);
  if (!interest) throw errors.notFound('No such interest');
  return interest;
}

/** Interests contacts can have (`/v2/{account}/interests…`). */
export function interestRoutes(router: Router, store: Store): void {
  router.get('/interests', requirePermission('interests:list'), async (ctx) => {
    const options = parseListOptions(ctx, LIST);
    const { items, total } = await findInterests(store, ctx.params.account, options);
    replyPage(ctx, options, items.map(interestView), total);
  });

  router.post('/interests', requirePermission('interests:create'), async (ctx) => {
    const interest = await createInterest(store, ctx.params.account, validateCreate(numericDays(ctx.request.body ?? {})));
    reply(ctx, { status: 201, data: interestView(interest), location: `/v2/${interest.account}/interests/${interest.id}` });
  });

  router.get('/interests/:id', requirePermission('interests:list'), async (ctx) => {
    reply(ctx, { data: interestView(await loadInterest(store, ctx)) });
  });

  router.put('/interests/:id', requirePermission('interests:update'), async (ctx) => {
    const interest = await loadInterest(store, ctx);
    const changes = await updateInterest(store, interest, validateUpdate(numericDays(ctx.request.body ?? {})));
    reply(ctx, { data: { id: interest.id, ...changes } });
  });

  router.delete('/interests/:id', requirePermission('interests:delete'), async (ctx) => {
    const id = integerParam(ctx);
    if (Number.isNaN(id) || !(await deleteInterest(store, ctx.params.account, id))) throw errors.notFound('No such interest');
    reply(ctx, {});
  });
}

export const interestOperations = accountResource('Interests', [
  {
    method: 'get', path: '/v2/{account}/interests', id: 'listInterests', summary: 'Interests of the account', permissions: ['interests:list'],
    listing: { spec: LIST, q: 'the name' }, status: 200, response: 'A page of interests',
  },
  {
    method: 'post', path: '/v2/{account}/interests', id: 'createInterest', summary: 'Create an interest', permissions: ['interests:create'],
    body: createSchema, status: 201, location: true, response: 'The interest',
  },
  {
    method: 'get', path: '/v2/{account}/interests/{id}', id: 'getInterest', summary: 'An interest', permissions: ['interests:list'],
    status: 200, response: 'The interest',
  },
  {
    method: 'put', path: '/v2/{account}/interests/{id}', id: 'updateInterest', summary: 'Change an interest', permissions: ['interests:update'],
    body: updateSchema, status: 200, response: 'The id and what changed',
  },
  {
    method: 'delete', path: '/v2/{account}/interests/{id}', id: 'deleteInterest', summary: 'Delete an interest, taking it off every contact',
    permissions: ['interests:delete'], status: 200, response: 'Deleted',
  },
]);
