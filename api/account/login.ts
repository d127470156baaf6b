import Router from '@koa/router';
import { errors } from '../../core/shared/errors';
import { login, type LoginInput } from '../../core/accounts/login';
import { endSession, SESSION_SECONDS } from '../../core/accounts/sessions';
import type { Store } from '../../adapters/store/store';
import { readBody } from '../middleware/body';
import { ref } from '../openapi/components';
import type { OperationSpec } from '../openapi/operation';
import { validator } from '../validation';
import { ACCOUNT_BODY_LIMIT_BYTES } from './body-limit';
import { credentialsOf } from './auth';
import { reply } from './envelope';

const text = { type: 'string', minLength: 1, maxLength: 320 } as const;
const loginSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { user: text, password: { type: 'string', maxLength: 200 }, account: text, newPassword: { type: 'string', maxLength: 200 }, apikey: text },
} as const;
const validateLogin = validator<LoginInput>(loginSchema);

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

const session = {
  type: 'object',
  required: ['url', 'success', 'data'],
  properties: {
    url: { type: 'string' },
    success: { const: true },
    data: {
      type: 'object',
      properties: {
        token: { type: 'string', description: 'For `X-Auth-Token` or `?token=`.' },
        tokenExpiration: { type: 'integer', description: 'Seconds without use after which the session ends.' },
        user: { type: 'string' },
        account: { type: 'string' },
        acl: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'The user\'s permissions, by account.' },
      },
    },
  },
} as const;

export const loginOperations: OperationSpec[] = [
  {
    method: 'post', path: '/v2/login', id: 'login', tag: 'Authentication', auth: 'none', summary: 'Start a session',
    description: 'With `user` (the email, or `username@account`) and `password`; `account` when the email has users in several '
      + 'accounts (else 409 `ACCOUNT_REQUIRED`, the accounts in `error.data`); `newPassword` when the password expired '
      + '(else 401 `PASSWORD_EXPIRED`). Or with only `apikey`.',
    body: loginSchema, status: 201, response: 'The session token and the user\'s permissions', responseSchema: session, errors: [401, 409],
  },
  {
    method: 'post', path: '/v2/logout', id: 'logout', tag: 'Authentication', auth: 'session', summary: 'End the session at once',
    status: 200, response: 'Ended', responseSchema: ref('Envelope'),
  },
];
