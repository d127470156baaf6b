import type Router from '@koa/router';
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../../core/retention/policy';
import { accountRetention, RETENTION_DAYS_RULE, setAccountRetention } from '../../core/retention/setting';
import type { Store } from '../../adapters/store/store';
import { dataEnvelope } from '../openapi/components';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { reply } from './envelope';

export const retentionDays = {
  type: 'integer', minimum: MIN_RETENTION_DAYS, maximum: MAX_RETENTION_DAYS,
  description: `Days the account's request bodies and message events are kept: ${RETENTION_DAYS_RULE.toLowerCase()} (45 by default).`,
} as const;
const updateSchema = { type: 'object', additionalProperties: false, required: ['days'], properties: { days: retentionDays } } as const;
const validateUpdate = validator<{ days: number }>(updateSchema);

/**
 * The account's retention (`/v2/{account}/retention`): how many days its history is kept (see
 * core/retention/). Account configuration: `account:list` to see it, `account:update` to change it.
 */
export function retentionRoutes(router: Router, store: Store): void {
  router.get('/retention', requirePermission('account:list'), async (ctx) => {
    reply(ctx, { data: await accountRetention(store, ctx.params.account) });
  });

  router.put('/retention', requirePermission('account:update'), async (ctx) => {
    const { days } = validateUpdate(ctx.request.body ?? {});
    reply(ctx, { data: await setAccountRetention(store, ctx.params.account, days) });
  });
}

const retentionEnvelope = dataEnvelope({ type: 'object', required: ['days'], properties: { days: retentionDays } });

const WHAT = 'Request bodies, the send ledger and message events of messages sent more than `days` days ago are removed every hour; '
  + 'daily stats, campaign and automation figures, suppressions, contacts, campaigns and templates are kept (docs/account-api.md#retention).';

export const retentionOperations = accountResource('Account', [
  {
    method: 'get', path: '/v2/{account}/retention', id: 'getRetention', summary: 'How many days the account\'s message history is kept',
    description: WHAT, permissions: ['account:list'], status: 200, response: '`{days}`', responseSchema: retentionEnvelope,
  },
  {
    method: 'put', path: '/v2/{account}/retention', id: 'setRetention', summary: 'Change how many days the account\'s message history is kept',
    description: `${WHAT} A shorter retention takes effect at the next pruning (within the hour); a longer one keeps what is still there.`,
    permissions: ['account:update'], body: updateSchema, status: 200, response: '`{days}` as it is now', responseSchema: retentionEnvelope,
  },
]);
