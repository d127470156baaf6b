import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Store } from '../../core/store';
import { acceptSendRequest } from '../../core/transactional/accept';
import { httpErrors } from '../errors';
import { transactionalErrors } from '../middleware/transactional-errors';
import { transactionalAuth } from './auth';
import { validateSendBody } from './validate-send';

/** The spec's 10MB request limit, attachments included. */
const jsonBody = bodyParser({ enableTypes: ['json'], jsonLimit: '10mb', encoding: 'utf-8' });

export interface TransactionalDeps { store: Store; temporal: Client; taskQueue: string }

/** The transactional HTTP API under /v1. */
export function transactionalRouter(deps: TransactionalDeps): Router {
  const router = new Router({ prefix: '/v1' });
  // Authenticate before reading up to 10 MB of body.
  router.use(transactionalErrors, transactionalAuth(deps.store), jsonBody);

  // Validate, record the accepted request, start its workflow; 202 only once Temporal has it.
  router.post('/mail/send', async (ctx) => {
    if (!ctx.is('application/json')) throw httpErrors.badRequest('Content-Type must be application/json');
    const body = validateSendBody(ctx.request.body);
    const account: string = ctx.state.account;
    let requestId: string;
    try {
      requestId = await acceptSendRequest(deps, { account, source: 'http', body });
    } catch (error) {
      ctx.state.log.error({ err: error }, 'send request could not be accepted');
      throw httpErrors.unavailable();
    }
    ctx.state.log.info({ account, sendRequest: requestId, recipients: body.recipients.length }, 'send accepted');
    ctx.status = 202;
    ctx.body = { success: true, data: '' };
  });

  return router;
}
