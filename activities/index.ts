// Every activity the worker registers, each group built from the dependencies it needs.
import { createContactExportActivities } from './contact-export';
import { createContactImportActivities } from './contact-import';
import { createMigrationActivities } from './account-migration';
import { createTaskActivities } from './tasks';
import { createAutomationActivities } from './automations';
import { createCampaignActivities, type CampaignActivityDeps } from './campaigns';
import { createSendActivities, type SendActivityDeps } from './sending';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';
import { createBounceMailboxActivities, type BounceMailboxActivityDeps } from './bounce-mailbox';
import { createRetentionActivities, type RetentionActivityDeps } from './retention';

/** The worker's settings: the sending groups' (store, transport, mtaHost, publicUrl, bounceDomain?, campaignTuning?, drainTuning?), the webhooks', the bounce mailbox's and retention's. */
export interface ActivityDeps extends WebhookActivityDeps, CampaignActivityDeps, SendActivityDeps, BounceMailboxActivityDeps, RetentionActivityDeps {}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSendActivities(deps),
    ...createTaskActivities(deps),
    ...createContactExportActivities(deps),
    ...createContactImportActivities(deps),
    ...createMigrationActivities(deps),
    ...createWebhookActivities(deps),
    ...createCampaignActivities(deps),
    ...createAutomationActivities(deps),
    ...createBounceMailboxActivities(deps),
    ...createRetentionActivities(deps),
  };
}
