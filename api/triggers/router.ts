// The custom trigger intake, public: the address is the credential
// (`/events/customtriggers/{account}/init/{a}/{b}`, issued by activating the integration, see
// core/triggers/integration.ts). Errors are in the account API's envelope (api/render.ts picks
// it for every path outside /v1).
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { errors } from '../../core/shared/errors';
import { httpErrors } from '../http-errors';
import { toTriggerEvent } from '../../core/triggers/event';
import { acceptTriggerEvent, type IntakeDeps } from '../../core/triggers/intake';
import { verifyTriggerAddress } from '../../core/triggers/integration';
import { reply } from '../account/envelope';
import { readBody } from '../middleware/body';
import type { OperationSpec } from '../openapi/operation';
import { triggerEventSchema, validateTriggerEvent } from './event-schema';

/** An event is a small JSON document: its key, a contact and a context. */
export const TRIGGER_BODY_LIMIT_BYTES = 64 * 1024;

const INTAKE = '/events/customtriggers/:account/init/:credentialA/:credentialB';

export function triggerRouter(deps: IntakeDeps): Router {
  const router = new Router();

  // The address first (no body is read for a wrong one), then the body's type, size and shape,
  // then the event's fields; then the hourly limit and acceptance. 202 once Temporal has it.
  router.post(INTAKE, requireAddress(deps), requireJson, readBody({ types: ['json'], limitBytes: TRIGGER_BODY_LIMIT_BYTES }), async (ctx) => {
    const { account } = ctx.params;
    const event = toTriggerEvent(validateTriggerEvent(ctx.request.body ?? {}));
    const key = ctx.get('idempotency-key');
    const accepted = await acceptTriggerEvent(deps, account, event, key === '' ? undefined : key);
    if (!accepted.replayed) ctx.state.log.info({ account, triggerEvent: accepted.eventId, triggerKey: accepted.key }, 'trigger event accepted');
    reply(ctx, { status: 202, data: { event_id: accepted.eventId, trigger_key: accepted.key, contact: accepted.email } });
  });

  return router;
}

/** An unknown account, a wrong, rotated or deactivated address: the same 401, which names nothing. */
function requireAddress(deps: IntakeDeps) {
  return async (ctx: Context, next: Next) => {
    const { account, credentialA, credentialB } = ctx.params;
    if (!(await verifyTriggerAddress(deps.store, account, credentialA, credentialB))) throw errors.unauthorized('Invalid trigger address');
    await next();
  };
}

/** JSON only, as the spec's intake takes it: another type, or none, is 415 (even without a body). */
async function requireJson(ctx: Context, next: Next) {
  const type = ctx.request.type;
  if (type !== 'application/json' && !/^application\/[^/]+\+json$/.test(type)) throw httpErrors.unsupportedMediaType('Content-Type must be application/json');
  await next();
}

export const triggerOperations: OperationSpec[] = [{
  method: 'post', path: '/events/customtriggers/{account}/init/{credentialA}/{credentialB}', id: 'postTriggerEvent', tag: 'Custom triggers', auth: 'none',
  summary: 'Post a custom trigger event',
  description: [
    'The address is the credential: the `trigger_url` given when the account activates its custom-triggers integration',
    '(`POST /v2/{account}/integrations/customtriggers/activate`). An unknown account or a wrong, rotated or deactivated address is 401.',
    `The body must be \`application/json\` (else 415), at most ${TRIGGER_BODY_LIMIT_BYTES / 1024} KB (413); keys the schema does not name are ignored.`,
    'Every active automation whose trigger key equals `trigger_key` exactly starts for the contact (created in the account if missing), with `context` in its messages.',
    'At most the account\'s hourly limit of events (200 by default) per clock hour (UTC), counted across every API process: beyond, 429',
    '`TOO_MANY_REQUESTS` with a `Retry-After` header (seconds to the next hour) and the event is discarded. Invalid events count nothing.',
    'An `Idempotency-Key` header (1 to 255 printable ASCII characters) makes the event id derive from it: a repeat is answered as the first event',
    '(the same `event_id`), counts nothing and starts nothing twice; the same key with another event is 400.',
    'The answer comes once the event is recorded and its workflow started; the store or Temporal down is 503 and nothing is kept.',
  ].join(' '),
  body: triggerEventSchema, bodyTypes: ['json'],
  status: 202, response: 'Accepted: `data` is `{event_id, trigger_key, contact}`',
  responseSchema: {
    type: 'object', required: ['href', 'success', 'data'],
    properties: {
      href: { type: 'string' },
      success: { const: true },
      data: {
        type: 'object', required: ['event_id', 'trigger_key', 'contact'],
        properties: { event_id: { type: 'string' }, trigger_key: { type: 'string' }, contact: { type: 'string', description: 'Lowercased.' } },
      },
    },
  },
  errors: [401, 429, 503],
}];
