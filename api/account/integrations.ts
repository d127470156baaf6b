import type Router from '@koa/router';
import { errors } from '../../core/errors';
import { issueKey, revokeTransactionalKey, transactionalKeys } from '../../core/keys';
import type { KeyDoc, Store } from '../../core/store';
import { accountResource } from '../openapi/operation';
import { requirePermission } from './auth';
import { reply } from './envelope';
import { integerParam } from './params';

/**
 * The account's integrations: for now its transactional keys, the credentials of
 * `POST /v1/mail/send` and SMTP submission. Account-level credentials, so managed with the
 * account's permissions: `account:list` to see them, `account:update` to issue or revoke one.
 */
const KEYS = '/integrations/transactional/keys';

function keyView(key: KeyDoc) {
  return { id: key.id, hint: key.hint, created: key.createdAt.toISOString() };
}

export function integrationRoutes(router: Router, store: Store): void {
  router.get(KEYS, requirePermission('account:list'), async (ctx) => {
    reply(ctx, { data: (await transactionalKeys(store, ctx.params.account)).map(keyView) });
  });

  router.post(KEYS, requirePermission('account:update'), async (ctx) => {
    const { id, key } = await issueKey(store, ctx.params.account, 'transactional');
    // The key itself is shown only in this answer; it is stored as a hash.
    reply(ctx, { status: 201, data: { id, key }, location: `/v2/${ctx.params.account}${KEYS}/${id}` });
  });

  router.delete(`${KEYS}/:keyId`, requirePermission('account:update'), async (ctx) => {
    if (!(await revokeTransactionalKey(store, ctx.params.account, integerParam(ctx, 'keyId')))) throw errors.notFound('No such key');
    reply(ctx, {});
  });
}

export const integrationOperations = accountResource('Integrations', [
  {
    method: 'get', path: `/v2/{account}${KEYS}`, id: 'listTransactionalKeys', summary: 'The account\'s transactional keys (their hints, never the keys)',
    permissions: ['account:list'], status: 200, response: 'The keys: `id`, `hint`, `created`',
  },
  {
    method: 'post', path: `/v2/{account}${KEYS}`, id: 'createTransactionalKey', summary: 'Issue a transactional key (`<account>-tr-<random>`)',
    description: 'For `POST /v1/mail/send` and SMTP submission. The key is shown in this answer only: it is stored as a hash.',
    permissions: ['account:update'], status: 201, location: true, response: 'The key\'s `id` and the `key` itself',
  },
  {
    method: 'delete', path: `/v2/{account}${KEYS}/{keyId}`, id: 'deleteTransactionalKey', summary: 'Revoke a transactional key: sends with it are refused at once',
    permissions: ['account:update'], status: 200, response: 'Revoked',
  },
]);
