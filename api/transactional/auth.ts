import type { Context, Next } from 'koa';
import { findKey } from '../../core/accounts/keys';
import type { Store } from '../../adapters/store/store';
import { errors } from '../../core/shared/errors';
import { keyFromHeader } from '../credential-header';

/**
 * Authenticates a transactional key. Accepts `Bearer <key>`, `bearer <key>` (Java SDK) and
 * the bare key (the original docs' curl examples). Sets ctx.state.account.
 */
export function transactionalAuth(store: Store) {
  return async (ctx: Context, next: Next) => {
    const key = keyFromHeader(ctx.get('authorization'));
    if (!key) throw errors.unauthorized('Missing API key: send "Authorization: Bearer <transactional key>"');
    const record = await findKey(store, key, 'transactional');
    if (!record) throw errors.unauthorized('Invalid API key');
    ctx.state.account = record.account;
    await next();
  };
}
