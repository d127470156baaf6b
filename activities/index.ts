// Every activity the worker registers, each group built from the dependencies it needs.
import { createContactExportActivities } from './contact-export';
import { createContactImportActivities } from './contact-import';
import { createTaskActivities } from './tasks';
import { createAutomationActivities } from './automations';
import { createCampaignActivities, type CampaignActivityDeps } from './campaigns';
import { createSendActivities, type SendActivityDeps } from './sending';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';

/** The worker's settings: the sending groups' (store, transport, mtaHost, publicUrl, bounceDomain?, campaignTuning?, drainTuning?) and the webhooks'. */
export interface ActivityDeps extends WebhookActivityDeps, CampaignActivityDeps, SendActivityDeps {}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSendActivities(deps),
    ...createTaskActivities(deps),
    ...createContactExportActivities(deps),
    ...createContactImportActivities(deps),
    ...createWebhookActivities(deps),
    ...createCampaignActivities(deps),
    ...createAutomationActivities(deps),
  };
}
