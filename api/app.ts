import http from 'node:http';
import Koa from 'koa';
import type { Client } from '@temporalio/client';
import type { HttpsGet } from '../adapters/http/https-get';
import type { Logger } from '../adapters/logger';
import type { RelayDefinition } from '../adapters/relay/routes';
import type { FeedbackSettings } from '../core/bounces/feedback-settings';
import type { OptinSettings } from '../core/optin/mail';
import type { Store } from '../adapters/store/store';
import { accountRouters } from './account/router';
import type { ConsoleAssets } from './console/assets';
import { consoleRouter, type ConsoleSettings } from './console/router';
import { feedbackRouter } from './feedback/router';
import { healthRouter } from './health';
import { metricsRouter } from './metrics';
import { errorBoundary } from './middleware/error-boundary';
import { httpMetrics } from './middleware/http-metrics';
import { requestContext } from './middleware/request-context';
import { operations } from './openapi/operations';
import { openapiRouter } from './openapi/router';
import { optinRouter } from './optin/router';
import { withTrackingFastPath } from './tracking/fast-path';
import { trackingRouter, type TrackingSettings } from './tracking/router';
import { transactionalRouter } from './transactional/router';
import { triggerRouter } from './triggers/router';

export interface ApiDeps {
  store: Store; temporal: Client; taskQueue: string; namespace: string; logger: Logger;
  /** Links and From address of the hosted opt-in's mails (HERALD_PUBLIC_URL, HERALD_OPTIN_FROM). */
  optin: OptinSettings;
  /** GET /metrics asks for this bearer token (HERALD_METRICS_TOKEN); unset, it is open. */
  metricsToken: string | undefined;
  /** Webhook URLs on private and loopback addresses allowed (HERALD_WEBHOOK_ALLOW_PRIVATE). */
  webhookAllowPrivate: boolean;
  /** Where tracking links point and whether X-Forwarded-For is trusted (HERALD_PUBLIC_URL, HERALD_TRUST_PROXY). */
  tracking: TrackingSettings;
  /** The console's built files and what its page is told (api/console). */
  console: { assets: ConsoleAssets; settings: ConsoleSettings };
  /** Providers' bounce and complaint webhooks: their secrets (the relays file's `feedback`) and the HTTPS GET of SNS certificates. */
  feedback: { settings: FeedbackSettings; httpsGet: HttpsGet };
  /** The relays mail goes through (the relays file's, or SMTP_RELAY_URL's one), shown by GET /v2/{account}/relays without their URLs' credentials. */
  relays: RelayDefinition[];
}

/**
 * How long an idle keep-alive connection stays open. Node's 5 s is shorter than what clients and
 * proxies keep theirs (undici 4 s by its own count, a load balancer 60 s): a client sending on a
 * connection the server is closing that moment gets a reset instead of an answer (seen as
 * ECONNRESET on a POST after a few seconds' pause on a busy machine). Longer than a load
 * balancer's 60 s, so the server is never the one that closes first; the Keep-Alive header tells
 * clients (undici keeps them a second less).
 */
const KEEP_ALIVE_MS = 65_000;

/** The API's HTTP server: the Koa app, with tracking's open and click hits answered ahead of it (api/tracking/fast-path.ts). */
export function createApiServer(deps: ApiDeps): http.Server {
  const server = http.createServer(withTrackingFastPath({ store: deps.store, settings: deps.tracking }, createApp(deps).callback()));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1000; // above the keep-alive, as Node wants it
  return server;
}

/** The HTTP application: every interface's router behind the shared middleware. */
export function createApp(deps: ApiDeps): Koa {
  const app = new Koa();
  app.silent = true; // every error is rendered and logged by the error boundary
  const health = healthRouter(deps);
  const transactional = transactionalRouter(deps);
  const openapi = openapiRouter(operations);
  const optin = optinRouter({ ...deps, settings: deps.optin });
  app.use(requestContext(deps.logger));
  app.use(httpMetrics); // outside the boundary: it counts the status the boundary rendered
  app.use(errorBoundary);
  // First: tracking hits are the busiest requests, and public (the token is the credential).
  app.proxy = deps.tracking.trustProxy; // ctx.ip from X-Forwarded-For: its last entry, the one the proxy added
  app.maxIpsCount = 1;
  const tracking = trackingRouter({ store: deps.store, settings: deps.tracking });
  app.use(tracking.routes()).use(tracking.allowedMethods());
  app.use(health.routes()).use(health.allowedMethods());
  const metricsRoutes = metricsRouter({ token: deps.metricsToken });
  app.use(metricsRoutes.routes()).use(metricsRoutes.allowedMethods());
  app.use(transactional.routes()).use(transactional.allowedMethods());
  const feedback = feedbackRouter(deps); // public: each provider's signature or credentials are checked by its route
  app.use(feedback.routes()).use(feedback.allowedMethods());
  const triggers = triggerRouter(deps); // public: the custom trigger address is the credential
  app.use(triggers.routes()).use(triggers.allowedMethods());
  // Before the account routers: their /v2/:account would take "openapi.json" for an account.
  app.use(openapi.routes()).use(openapi.allowedMethods());
  app.use(optin.routes()).use(optin.allowedMethods()); // before them too: /v2/optin/… is public
  const consoleRoutes = consoleRouter(deps.console.assets, deps.console.settings);
  app.use(consoleRoutes.routes()).use(consoleRoutes.allowedMethods());
  for (const router of accountRouters(deps)) app.use(router.routes()).use(router.allowedMethods());
  return app;
}
