import type Router from '@koa/router';
import { activeContacts } from '../../core/accounts/active-contacts';
import { settingsOf } from '../../core/accounts/settings';
import { errors } from '../../core/shared/errors';
import type { Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { reply } from './envelope';
import { retentionDays } from './retention';

/**
 * GET /v2/{account}: the account's information, in the shape the original's clients read
 * (`code`, `name`, `plan`), and Herald's `retention` (how many days its message history is kept:
 * ./retention.ts). A self-hosted account has no plan limits: those are null; the count of active
 * contacts may be up to 10 s old (core/accounts/active-contacts.ts).
 */
export function accountInfoRoutes(router: Router, store: Store): void {
  router.get('/', async (ctx) => {
    const account = await store.accounts.findOne({ _id: ctx.params.account });
    if (!account) throw errors.notFound('No such account');
    const active = await activeContacts(store, account._id);
    reply(ctx, {
      data: {
        code: account._id,
        name: account.name ?? account._id,
        plan: { state: 'ACTIVE', contacts: { limit: null, active }, emails: { available: null } },
        retention: { days: settingsOf(account).retentionDays },
      },
    });
  });
}

const accountEnvelope = {
  type: 'object',
  required: ['href', 'success', 'data'],
  properties: {
    href: { type: 'string' },
    success: { const: true },
    data: {
      type: 'object',
      required: ['code', 'name', 'plan', 'retention'],
      properties: {
        code: { type: 'string', description: 'The account\'s name in paths.' },
        name: { type: 'string' },
        plan: {
          type: 'object',
          required: ['state', 'contacts', 'emails'],
          properties: {
            state: { const: 'ACTIVE' },
            contacts: {
              type: 'object', required: ['limit', 'active'],
              properties: { limit: { type: 'null' }, active: { type: 'integer', minimum: 0, description: 'Contacts in state ACTIVE (up to 10 s old).' } },
            },
            emails: { type: 'object', required: ['available'], properties: { available: { type: 'null' } } },
          },
        },
        retention: {
          type: 'object', required: ['days'], properties: { days: retentionDays },
          description: 'How long the account\'s message history is kept; changed with PUT /v2/{account}/retention.',
        },
      },
    },
  },
} as const;

export const accountInfoOperations = accountResource('Account', [{
  method: 'get', path: '/v2/{account}', id: 'getAccount', summary: 'The account\'s information',
  description: 'Any credentials of the account will do. `plan` limits are null: a self-hosted account has none. '
    + '`retention.days`: how many days request bodies and message events are kept (Herald\'s addition).',
  status: 200, response: 'The account: `code`, `name`, `plan`, `retention`', responseSchema: accountEnvelope,
}]);
