import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { Principal } from '../../core/accounts/credentials';
import { errors } from '../../core/shared/errors';
import { issueKey, revokeUserKey, userKeys } from '../../core/accounts/keys';
import { MIN_PASSWORD_LENGTH } from '../../core/accounts/passwords';
import { ALL_PERMISSIONS } from '../../core/accounts/permissions';
import type { KeyDoc, Store, UserDoc } from '../../adapters/store/store';
import { createUser, deleteUser, findUser, findUsers, updateUser, type NewUser } from '../../core/accounts/users';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';
import { integerParam } from './params';

const email = { type: 'string', format: 'email', maxLength: 254 } as const;
const password = { type: 'string', minLength: MIN_PASSWORD_LENGTH, maxLength: 200 } as const;
const permissions = { type: 'array', maxItems: ALL_PERMISSIONS.length, items: { type: 'string', enum: [...ALL_PERMISSIONS] } } as const;

const createSchema = {
  type: 'object', additionalProperties: false, required: ['email', 'password'], properties: { email, password, permissions },
} as const;
const updateSchema = { type: 'object', additionalProperties: false, properties: { email, password, permissions } } as const;
const validateCreate = validator<NewUser>(createSchema);
const validateUpdate = validator<Partial<NewUser>>(updateSchema);

const LIST: ListSpec = { sortFields: ['id', 'email', 'created'], defaultDir: 'asc', defaultLimit: 20 };

/** The user as the API shows it: never a password hash. */
function userView(user: UserDoc) {
  return {
    id: user.id, email: user.email ?? null, username: user.username, permissions: user.permissions,
    created: user.created.toISOString(), lastModified: user.lastModified.toISOString(),
  };
}

function keyView(key: KeyDoc) {
  return { id: key.id, hint: key.hint, created: key.createdAt.toISOString() };
}

/** `/users/{id}` with an integer id of this account, else 404. */
async function loadUser(store: Store, ctx: Context): Promise<UserDoc> {
  const id = integerParam(ctx);
  const user = Number.isNaN(id) ? null : await findUser(store, ctx.params.account, id);
  if (!user) throw errors.notFound('No such user');
  return user;
}

/** No one grants what they do not hold: a users:create key cannot mint an all-powerful user. */
function checkGrantable(principal: Principal, wanted: string[] | undefined) {
  const missing = (wanted ?? ALL_PERMISSIONS).filter((p) => !principal.permissions.has(p));
  if (missing.length > 0) throw errors.forbidden(`You cannot grant permissions you do not have: ${missing.slice(0, 10).join(', ')}`);
}

/** Managing a user's keys: the user themselves, or someone allowed to update users. */
async function selfOrUsersUpdate(ctx: Context, next: Next) {
  const principal: Principal = ctx.state.principal;
  if (String(principal.userId) !== ctx.params.id && !principal.permissions.has('users:update')) {
    throw errors.forbidden('Missing permission users:update');
  }
  await next();
}

/** Users of an account, and their API keys (`/v2/{account}/users…`). */
export function userRoutes(router: Router, store: Store): void {
  router.get('/users', requirePermission('users:list'), async (ctx) => {
    const options = parseListOptions(ctx, LIST);
    const { items, total } = await findUsers(store, ctx.params.account, options);
    replyPage(ctx, options, items.map(userView), total);
  });

  router.post('/users', requirePermission('users:create'), async (ctx) => {
    const input = validateCreate(ctx.request.body ?? {});
    checkGrantable(ctx.state.principal, input.permissions);
    const user = await createUser(store, ctx.params.account, input);
    reply(ctx, { status: 201, data: userView(user), location: `/v2/${user.account}/users/${user.id}` });
  });

  router.get('/users/:id', requirePermission('users:list'), async (ctx) => {
    reply(ctx, { data: userView(await loadUser(store, ctx)) });
  });

  router.put('/users/:id', requirePermission('users:update'), async (ctx) => {
    const user = await loadUser(store, ctx);
    const input = validateUpdate(ctx.request.body ?? {});
    if (input.permissions) checkGrantable(ctx.state.principal, input.permissions);
    const changes = await updateUser(store, user, input);
    // Only the modified information, as the original's PUT answers.
    const { passwordHash: _hash, passwordExpired: _expired, ...shown } = changes;
    reply(ctx, { data: { id: user.id, ...shown, ...(input.password !== undefined ? { password: 'changed' } : {}) } });
  });

  router.delete('/users/:id', requirePermission('users:delete'), async (ctx) => {
    const user = await loadUser(store, ctx);
    if (user.id === (ctx.state.principal as Principal).userId) throw errors.badRequest('You cannot delete your own user');
    await deleteUser(store, user.account, user.id);
    reply(ctx, {});
  });

  router.get('/users/:id/keys', selfOrUsersUpdate, async (ctx) => {
    const user = await loadUser(store, ctx);
    reply(ctx, { data: (await userKeys(store, user.account, user.id)).map(keyView) });
  });

  router.post('/users/:id/keys', selfOrUsersUpdate, async (ctx) => {
    const user = await loadUser(store, ctx);
    const { id, key } = await issueKey(store, user.account, 'api', user.id);
    // The key itself is shown only in this answer; it is stored as a hash.
    reply(ctx, { status: 201, data: { id, key }, location: `/v2/${user.account}/users/${user.id}/keys/${id}` });
  });

  router.delete('/users/:id/keys/:keyId', selfOrUsersUpdate, async (ctx) => {
    const user = await loadUser(store, ctx);
    const keyId = integerParam(ctx, 'keyId');
    if (!(await revokeUserKey(store, user.account, user.id, keyId))) throw errors.notFound('No such key');
    reply(ctx, {});
  });
}

const selfOrUsersUpdateRule = 'The user themselves, or a user with `users:update`.';

export const userOperations = accountResource('Users', [
  {
    method: 'get', path: '/v2/{account}/users', id: 'listUsers', summary: 'Users of the account', permissions: ['users:list'],
    listing: { spec: LIST, q: 'the email' }, status: 200, response: 'A page of users',
  },
  {
    method: 'post', path: '/v2/{account}/users', id: 'createUser', summary: 'Add a user', permissions: ['users:create'],
    description: 'Every permission when none are given; no one grants a permission they do not hold (403).',
    body: createSchema, status: 201, location: true, response: 'The user', errors: [409],
  },
  { method: 'get', path: '/v2/{account}/users/{id}', id: 'getUser', summary: 'A user', permissions: ['users:list'], status: 200, response: 'The user' },
  {
    method: 'put', path: '/v2/{account}/users/{id}', id: 'updateUser', summary: 'Change a user\'s email, password or permissions',
    permissions: ['users:update'], body: updateSchema, status: 200, response: 'The id and what changed', errors: [409],
  },
  {
    method: 'delete', path: '/v2/{account}/users/{id}', id: 'deleteUser', summary: 'Delete a user and end its access',
    description: 'A user cannot delete itself (400).', permissions: ['users:delete'], status: 200, response: 'Deleted', errors: [400],
  },
  {
    method: 'get', path: '/v2/{account}/users/{id}/keys', id: 'listUserKeys', summary: 'A user\'s API keys (their hints, never the keys)',
    access: selfOrUsersUpdateRule, status: 200, response: 'The keys: `id`, `hint`, `created`',
  },
  {
    method: 'post', path: '/v2/{account}/users/{id}/keys', id: 'createUserKey', summary: 'Issue an API key for a user',
    description: 'The key is shown in this answer only: it is stored as a hash.',
    access: selfOrUsersUpdateRule, status: 201, location: true, response: 'The key\'s `id` and the `key` itself',
  },
  {
    method: 'delete', path: '/v2/{account}/users/{id}/keys/{keyId}', id: 'deleteUserKey', summary: 'Delete an API key, ending its access at once',
    access: selfOrUsersUpdateRule, status: 200, response: 'Deleted',
  },
]);
