import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Context, Next } from 'koa';
import { errors } from '../../core/errors';
import { DEFAULT_LIMITS } from '../../core/limits';
import { ALLOWED_HEADERS } from '../../core/transactional/headers';
import type { Store } from '../../core/store';
import { acceptSendRequest } from '../../core/transactional/accept';
import { batchId } from '../../core/transactional/request';
import { readBody } from '../middleware/body';
import type { OperationSpec } from '../openapi/operation';
import { transactionalAuth } from './auth';
import { NOT_YET_SUPPORTED, sendSchema } from './send-schema';
import { validateSendBody } from './validate-send';

/** The spec's 10MB request limit, attachments included. */
export const SEND_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/** One string may fill the request (an attachment's data); the schema bounds every other field. */
const SEND_LIMITS = { ...DEFAULT_LIMITS, maxStringLength: SEND_BODY_LIMIT_BYTES };

export interface TransactionalDeps { store: Store; temporal: Client; taskQueue: string }

/** The transactional HTTP API under /v1. Errors are rendered in its shape by the app's error boundary. */
export function transactionalRouter(deps: TransactionalDeps): Router {
  const router = new Router({ prefix: '/v1' });

  // Validate, record the accepted request, start its workflow; 202 only once Temporal has it.
  // Authenticate before reading up to 10 MB of body.
  router.post('/mail/send', transactionalAuth(deps.store), requireJson, readBody({ types: ['json'], limitBytes: SEND_BODY_LIMIT_BYTES, limits: SEND_LIMITS }), async (ctx) => {
    const body = validateSendBody(ctx.request.body);
    const account: string = ctx.state.account;
    const requestId = await acceptSendRequest(deps, { account, source: 'http', body });
    ctx.state.log.info({ account, sendRequest: requestId, recipients: body.recipients.length }, 'send accepted');
    ctx.status = 202;
    // The body stays exactly the original's; the batch id (for cancelling, and the events) comes in a header.
    ctx.set('Herald-Batch-Id', batchId(account, requestId, body.batch_code));
    ctx.body = { success: true, data: '' };
  });

  return router;
}

export const sendOperations: OperationSpec[] = [{
  method: 'post', path: '/v1/mail/send', id: 'sendMail', tag: 'Transactional', auth: 'transactional',
  summary: 'Send a message to one or more recipients',
  description: [
    'Accepted once recorded and handed to Temporal; delivery follows. The body must be `application/json`, 10 MB at most.',
    `Beyond the schema: \`content\` needs \`html\` or \`text\`; \`headers\` may name only \`X-…\` headers and ${ALLOWED_HEADERS.join(', ')};`,
    `${NOT_YET_SUPPORTED.map((f) => `\`${f}\``).join(', ')} are refused when given (not supported yet);`,
    '`null` and empty collections mean absent; `batch_code` is lower-cased and keeps only `a-z` and `0-9`.',
    'The answer carries the batch id of the events in a `Herald-Batch-Id` header: `<account>_transactional_<batch_code or request id>`.',
  ].join(' '),
  body: sendSchema,
  status: 202, response: 'Accepted',
  responseSchema: { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data: { const: '' } } },
}];

/** The spec names application/json the only accepted type, and its error table has no 415. */
async function requireJson(ctx: Context, next: Next) {
  if (!ctx.is('json')) throw errors.badRequest('Content-Type must be application/json');
  await next();
}
