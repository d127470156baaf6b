import Router from '@koa/router';
import { errors } from '../../core/errors';
import { login, type LoginInput } from '../../core/login';
import { endSession, SESSION_SECONDS } from '../../core/sessions';
import type { Store } from '../../core/store';
import { readBody } from '../middleware/body';
import { validator } from '../validation';
import { ACCOUNT_BODY_LIMIT_BYTES } from './body-limit';
import { credentialsOf } from './auth';
import { reply } from './envelope';

const text = { type: 'string', minLength: 1, maxLength: 320 } as const;
const validateLogin = validator<LoginInput>({
  type: 'object',
  additionalProperties: false,
  properties: { user: text, password: { type: 'string', maxLength: 200 }, account: text, newPassword: { type: 'string', maxLength: 200 }, apikey: text },
});

/** POST /v2/login and /v2/logout: session tokens for the `X-Auth-Token` header. */
export function loginRouter(store: Store): Router {
  const router = new Router({ prefix: '/v2' });
  const body = readBody({ types: ['json', 'form'], limitBytes: ACCOUNT_BODY_LIMIT_BYTES });

  router.post('/login', body, async (ctx) => {
    const { token, user } = await login(store, validateLogin(ctx.request.body ?? {}));
    reply(ctx, {
      status: 201,
      pathKey: 'url',
      data: { token, tokenExpiration: SESSION_SECONDS, user: user.username, account: user.account, acl: { [user.account]: user.permissions } },
    });
  });

  router.post('/logout', body, async (ctx) => {
    const credentials = credentialsOf(ctx);
    let ended = false;
    for (const credential of credentials) ended = (await endSession(store, credential)) || ended;
    if (!ended) throw errors.unauthorized('No live session token in X-Auth-Token or ?token=');
    reply(ctx, { pathKey: 'url' });
  });

  return router;
}
