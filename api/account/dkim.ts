import type Router from '@koa/router';
import { createDkimKey, deleteDkimKey, dkimKeyView, findDkimKey, findDkimKeys, type DkimKeyInput } from '../../core/sending/dkim';
import { errors } from '../../core/shared/errors';
import type { Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { reply } from './envelope';
import { integerParam } from './params';

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const createSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['domain', 'selector'],
  properties: {
    domain: { type: 'string', maxLength: 253, pattern: `^${LABEL}(?:\\.${LABEL})+$` },
    selector: { type: 'string', maxLength: 63, pattern: `^${LABEL}(?:\\.${LABEL})*$` },
    privateKey: { type: 'string', maxLength: 10_000 },
  },
} as const;
const validateCreate = validator<DkimKeyInput>(createSchema);

/**
 * DKIM keys of the account's sender domains (`/v2/{account}/dkim-keys`), one per domain. Account
 * configuration, so `account:list` to see them and `account:update` to add or delete one.
 */
export function dkimRoutes(router: Router, store: Store): void {
  router.get('/dkim-keys', requirePermission('account:list'), async (ctx) => {
    reply(ctx, { data: (await findDkimKeys(store, ctx.params.account)).map(dkimKeyView) });
  });

  router.post('/dkim-keys', requirePermission('account:update'), async (ctx) => {
    const key = await createDkimKey(store, ctx.params.account, validateCreate(ctx.request.body ?? {}));
    reply(ctx, { status: 201, data: dkimKeyView(key), location: `/v2/${key.account}/dkim-keys/${key.id}` });
  });

  router.get('/dkim-keys/:id', requirePermission('account:list'), async (ctx) => {
    const key = await findDkimKey(store, ctx.params.account, integerParam(ctx));
    if (!key) throw errors.notFound('No such DKIM key');
    reply(ctx, { data: dkimKeyView(key) });
  });

  router.delete('/dkim-keys/:id', requirePermission('account:update'), async (ctx) => {
    if (!(await deleteDkimKey(store, ctx.params.account, integerParam(ctx)))) throw errors.notFound('No such DKIM key');
    reply(ctx, {});
  });
}

export const dkimOperations = accountResource('DKIM keys', [
  {
    method: 'get', path: '/v2/{account}/dkim-keys', id: 'listDkimKeys', summary: 'DKIM keys of the account\'s sender domains (never the private keys)',
    permissions: ['account:list'], status: 200, response: 'The keys: `id`, `domain`, `selector`, `publicKey`, `dnsRecord`, `created`',
  },
  {
    method: 'post', path: '/v2/{account}/dkim-keys', id: 'createDkimKey', summary: 'Add the DKIM key of a sender domain',
    description: 'Without `privateKey` Herald makes an RSA 2048 key pair; a given one must be an RSA PEM key of 1024 to 4096 bits. ' +
      'Publish `dnsRecord`; from then on mail from the domain is signed. One key per domain (409 for a second: delete the first to replace it).',
    permissions: ['account:update'], body: createSchema, status: 201, location: true, response: 'The key, without its private key', errors: [409],
  },
  {
    method: 'get', path: '/v2/{account}/dkim-keys/{id}', id: 'getDkimKey', summary: 'A DKIM key (never the private key)',
    permissions: ['account:list'], status: 200, response: 'The key',
  },
  {
    method: 'delete', path: '/v2/{account}/dkim-keys/{id}', id: 'deleteDkimKey', summary: 'Delete a DKIM key: mail from its domain goes out unsigned',
    permissions: ['account:update'], status: 200, response: 'Deleted',
  },
]);
