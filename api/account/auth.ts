import type { Context, Next } from 'koa';
import { resolveCredential, type Principal } from '../../core/accounts/credentials';
import { errors } from '../../core/shared/errors';
import type { Store } from '../../adapters/store/store';
import { keyFromHeader } from '../credential-header';

/**
 * Every credential a request carries, in the places the original's clients put them:
 * `X-Auth-Token` (session token, or a key in the spec's campaign examples), `Authorization`
 * (`Bearer <key>`, `bearer <key>` or the bare key), `Authentication` (the activity reference's
 * name for it) and the `token` query parameter.
 */
export function credentialsOf(ctx: Context): string[] {
  const found = [
    ctx.get('x-auth-token').trim(),
    keyFromHeader(ctx.get('authorization')),
    keyFromHeader(ctx.get('authentication')),
    typeof ctx.query.token === 'string' ? ctx.query.token : undefined,
  ];
  return [...new Set(found.filter((c): c is string => Boolean(c)))];
}

/** Authenticates the request (any one valid credential will do) and sets ctx.state.principal. */
export function authenticate(store: Store) {
  return async (ctx: Context, next: Next) => {
    const credentials = credentialsOf(ctx);
    if (credentials.length === 0) {
      throw errors.unauthorized('Missing credentials: send "Authorization: Bearer <API key>" or "X-Auth-Token: <token>"');
    }
    let principal: Principal | null = null;
    for (const credential of credentials) {
      principal = await resolveCredential(store, credential);
      if (principal) break;
    }
    if (!principal) throw errors.unauthorized('Invalid or expired credentials');
    ctx.state.principal = principal;
    await next();
  };
}

/** The path's account must be the credential's: another account's data is never served. */
export async function requireOwnAccount(ctx: Context, next: Next) {
  const principal: Principal = ctx.state.principal;
  if (ctx.params.account !== principal.account) {
    throw errors.forbidden(`These credentials do not give access to the account "${String(ctx.params.account).slice(0, 40)}"`);
  }
  await next();
}

/**
 * 403 FORBIDDEN unless the user holds the permission (read from the user on every request).
 * The middleware carries its permission, so the OpenAPI test can check the documented ones.
 */
export function requirePermission(permission: string) {
  const check = async (ctx: Context, next: Next) => {
    if (!(ctx.state.principal as Principal).permissions.has(permission)) {
      throw errors.forbidden(`Missing permission ${permission}`);
    }
    await next();
  };
  return Object.assign(check, { permission });
}
