import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Store } from '../../adapters/store/store';
import { readBody } from '../middleware/body';
import { accountInfoRoutes } from './account-info';
import { activityRoutes } from './activity';
import { authenticate, requireOwnAccount } from './auth';
import { automationRoutes } from './automations';
import { bounceRoutes } from './bounces';
import { batchRoutes } from './batches';
import { campaignContentBodyRouter, campaignContentRoutes } from './campaign-contents';
import { campaignPreviewRoutes } from './campaign-preview';
import { campaignLaunchRoutes } from './campaign-launch';
import { campaignReportRoutes } from './campaign-reports';
import { campaignRoutes } from './campaigns';
import { contactExportRoutes } from './contact-export';
import { contactImportRouter } from './contact-import';
import { contactRoutes } from './contacts';
import { dkimRoutes } from './dkim';
import { ACCOUNT_BODY_LIMIT_BYTES } from './body-limit';
import { fieldRoutes } from './fields';
import { customTriggerRoutes, integrationRoutes } from './integrations';
import { interestRoutes } from './interests';
import { listRoutes } from './lists';
import { relayRoutes, type RelayApiDeps } from './relays';
import { retentionRoutes } from './retention';
import { loginRouter } from './login';
import { statsRoutes } from './stats';
import { suppressionRoutes } from './suppressions';
import { taskRoutes } from './tasks';
import { migrationRoutes } from './migrations';
import { matchAccountRoutes } from './route-matching';
import { templateRoutes } from './templates';
import { userRoutes } from './users';
import { webhookRoutes } from './webhooks';

export interface AccountApiDeps extends RelayApiDeps {
  store: Store; temporal: Client; taskQueue: string;
  /** The Temporal server's limit on a search attribute value (a campaign's test sends are accepted like transactional ones). */
 
  /** Webhook URLs on private and loopback addresses allowed (HERALD_WEBHOOK_ALLOW_PRIVATE). */
  webhookAllowPrivate: boolean;
  /** Where custom trigger addresses point (HERALD_PUBLIC_URL, as tracking links). */
  tracking: { publicUrl: string };
  /** Temporal's namespace (a batch's runs are found there). */
  namespace: string;
}

/**
 * The account REST API under /v2: login and logout, then everything under /v2/{account},
 * authenticated, limited to the credential's own account, with JSON or form bodies. The contacts
 * import routes come first, on a router of their own: they read bodies the others refuse (a
 * multipart file, JSON or form bodies with inline CSV beyond 1 MB); so do a campaign content's
 * raw `.html` and `.txt` bodies.
 */
export function accountRouters(deps: AccountApiDeps): Router[] {
  const scoped = new Router({ prefix: '/v2/:account' });
  scoped.use(authenticate(deps.store), requireOwnAccount, readBody({ types: ['json', 'form'], limitBytes: ACCOUNT_BODY_LIMIT_BYTES }));
  accountInfoRoutes(scoped, deps.store);
  retentionRoutes(scoped, deps.store);
  userRoutes(scoped, deps.store);
  integrationRoutes(scoped, deps.store);
  customTriggerRoutes(scoped, { store: deps.store, publicUrl: deps.tracking.publicUrl });
  dkimRoutes(scoped, deps.store);
  relayRoutes(scoped, deps);
  listRoutes(scoped, deps.store);
  interestRoutes(scoped, deps.store);
  fieldRoutes(scoped, deps.store);
  templateRoutes(scoped, deps.store);
  contactRoutes(scoped, deps.store);
  contactExportRoutes(scoped, deps);
  taskRoutes(scoped, deps);
  migrationRoutes(scoped, deps);
  activityRoutes(scoped, deps.store);
  statsRoutes(scoped, deps.store);
  suppressionRoutes(scoped, deps.store);
  bounceRoutes(scoped, deps.store);
  batchRoutes(scoped, deps);
  webhookRoutes(scoped, deps);
  campaignRoutes(scoped, deps.store);
  campaignContentRoutes(scoped, deps);
  campaignPreviewRoutes(scoped, deps);
  campaignLaunchRoutes(scoped, deps);
  campaignReportRoutes(scoped, deps.store);
  automationRoutes(scoped, deps);
  return [loginRouter(deps.store), ...[contactImportRouter(deps), campaignContentBodyRouter(deps.store), scoped].map(matchAccountRoutes)];
}
