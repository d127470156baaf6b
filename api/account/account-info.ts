import type Router from '@koa/router';
import { activeContacts } from '../../core/accounts/active-contacts';
import { errors } from '../../core/shared/errors';
import type { Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { reply } from './envelope';

/**
 * GET /v2/{account}: the account's information, in the shape the original's clients read
 * (`code`, `name`, `plan`). A self-hosted account has no plan limits: those are null; the count
 * of active contacts may be up to 10 s old (core/accounts/active-contacts.ts).
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
      },
    });
  });
}

export const accountInfoOperations = accountResource('Account', [{
  method: 'get', path: '/v2/{account}', id: 'getAccount', summary: 'The account\'s information',
  description: 'Any credentials of the account will do. `plan` limits are null: a self-hosted account has none.',
  status: 200, response: 'The account: `code`, `name`, `plan`',
}]);
