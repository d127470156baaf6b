// Every activity the worker registers, each group built from the dependencies it needs.
import { createContactExportActivities } from './contact-export';
import { createContactImportActivities } from './contact-import';
import { createTaskActivities } from './tasks';
import { createAutomationActivities } from './automations';
import { createCampaignActivities, type CampaignActivityDeps } from './campaigns';
import { createSendActivities } from './sending';
import { withGatheringBacklog } from './send-metrics';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';

/** The worker's settings: the sending groups' (store, transport, mtaHost, publicUrl, bounceDomain?, campaignTuning?) and the webhooks'. */
export interface ActivityDeps extends WebhookActivityDeps, CampaignActivityDeps {}

export function createActivities(deps: ActivityDeps) {
  return {
    ...withGatheringBacklog(createSendActivities(deps)), // sets herald_gathering_backlog
    ...createTaskActivities(deps),
    ...createContactExportActivities(deps),
    ...createContactImportActivities(deps),
    ...createWebhookActivities(deps),
    ...createCampaignActivities(deps),
    ...createAutomationActivities(deps),
  };
}
