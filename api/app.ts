import Koa from 'koa';
import type { Client } from '@temporalio/client';
import type { Logger } from '../core/logger';
import type { Store } from '../core/store';
import { accountRouters } from './account/router';
import { healthRouter } from './health';
import { errorBoundary } from './middleware/error-boundary';
import { requestContext } from './middleware/request-context';
import { operations } from './openapi/operations';
import { openapiRouter } from './openapi/router';
import { transactionalRouter } from './transactional/router';

export interface ApiDeps { store: Store; temporal: Client; taskQueue: string; namespace: string; logger: Logger }

/** The HTTP application: every interface's router behind the shared middleware. */
export function createApp(deps: ApiDeps): Koa {
  const app = new Koa();
  app.silent = true; // every error is rendered and logged by the error boundary
  const health = healthRouter(deps);
  const transactional = transactionalRouter(deps);
  const openapi = openapiRouter(operations);
  app.use(requestContext(deps.logger));
  app.use(errorBoundary);
  app.use(health.routes()).use(health.allowedMethods());
  app.use(transactional.routes()).use(transactional.allowedMethods());
  // Before the account routers: their /v2/:account would take "openapi.json" for an account.
  app.use(openapi.routes()).use(openapi.allowedMethods());
  for (const router of accountRouters(deps)) app.use(router.routes()).use(router.allowedMethods());
  return app;
}
