import type Router from '@koa/router';
import { errors } from '../../core/shared/errors';
import { issueKey, revokeTransactionalKey, transactionalKeys } from '../../core/accounts/keys';
import type { KeyDoc, Store } from '../../adapters/store/store';
import {
  activateTriggers, deactivateTriggers, rotateTriggers, triggerIntegrationStatus, triggerUrl,
} from '../../core/triggers/integration';
import { accountResource } from '../openapi/operation';
import { requirePermission } from './auth';
import { reply } from './envelope';
import { integerParam } from './params';

/**
 * The account's integrations: its transactional keys, the credentials of `POST /v1/mail/send`
 * and SMTP submission, and custom triggers (below). Account-level credentials, so managed with the
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

/**
 * The custom-triggers integration: its address (`trigger_url`) is the credential of the public
 * intake (api/triggers/router.ts), shown only when activated or rotated (only its hash is kept).
 */
const TRIGGERS = '/integrations/customtriggers';

const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;

export function customTriggerRoutes(router: Router, deps: { store: Store; publicUrl: string }): void {
  const { store, publicUrl } = deps;
  router.get(TRIGGERS, requirePermission('account:list'), async (ctx) => {
    const status = await triggerIntegrationStatus(store, ctx.params.account);
    reply(ctx, {
      data: { active: status.active, activated: isoOrNull(status.activated), rotated: isoOrNull(status.rotated), deactivated: isoOrNull(status.deactivated) },
    });
  });

  router.post(`${TRIGGERS}/activate`, requirePermission('account:update'), async (ctx) => {
    const { account } = ctx.params;
    const { address, activated } = await activateTriggers(store, account);
    reply(ctx, { status: 201, data: { active: true, trigger_url: triggerUrl(publicUrl, account, address), activated: activated.toISOString() } });
  });

  router.post(`${TRIGGERS}/rotate`, requirePermission('account:update'), async (ctx) => {
    const { account } = ctx.params;
    const { address, rotated } = await rotateTriggers(store, account);
    reply(ctx, { data: { active: true, trigger_url: triggerUrl(publicUrl, account, address), rotated: rotated.toISOString() } });
  });

  router.post(`${TRIGGERS}/deactivate`, requirePermission('account:update'), async (ctx) => {
    const { deactivated } = await deactivateTriggers(store, ctx.params.account);
    reply(ctx, { data: { active: false, deactivated: isoOrNull(deactivated) } });
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
  {
    method: 'get', path: `/v2/{account}${TRIGGERS}`, id: 'getCustomTriggers', summary: 'The custom-triggers integration\'s state (never its address)',
    permissions: ['account:list'], status: 200, response: '`{active, activated, rotated, deactivated}` (ISO 8601 dates, or null)',
  },
  {
    method: 'post', path: `/v2/{account}${TRIGGERS}/activate`, id: 'activateCustomTriggers', summary: 'Activate custom triggers: issues the trigger address',
    description: '`trigger_url` (`<public URL>/events/customtriggers/{account}/init/{8 hex}/{8 hex}`) is where the account\'s systems post '
      + 'custom trigger events; it is shown in this answer only (stored as a hash). Already active: 409 (rotate to get a new address).',
    permissions: ['account:update'], status: 201, response: '`{active: true, trigger_url, activated}`', errors: [409],
  },
  {
    method: 'post', path: `/v2/{account}${TRIGGERS}/rotate`, id: 'rotateCustomTriggers', summary: 'Replace the trigger address: the old one is refused at once',
    description: 'The new `trigger_url` is shown in this answer only. Not active: 404.',
    permissions: ['account:update'], status: 200, response: '`{active: true, trigger_url, rotated}`', errors: [404],
  },
  {
    method: 'post', path: `/v2/{account}${TRIGGERS}/deactivate`, id: 'deactivateCustomTriggers', summary: 'Deactivate custom triggers: every address is refused at once',
    description: 'Idempotent. Activating again issues a new address.',
    permissions: ['account:update'], status: 200, response: '`{active: false, deactivated}`',
  },
]);
