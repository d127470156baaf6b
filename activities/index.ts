// Every activity the worker registers, each group built from the dependencies it needs.
import type { Store } from '../adapters/store/store';
import type { RelaySender } from '../adapters/relay/transport';
import { createContactExportActivities } from './contact-export';
import { createContactImportActivities } from './contact-import';
import { createTaskActivities } from './tasks';
import { createAutomationActivities } from './automations';
import { createCampaignActivities, type CampaignActivityDeps } from './campaigns';
import { createSendActivities } from './sending';
import { withGatheringBacklog } from './send-metrics';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';

export interface ActivityDeps extends WebhookActivityDeps, Pick<CampaignActivityDeps, 'campaignTuning'> {
  store: Store; transport: RelaySender; mtaHost: string; publicUrl: string; bounceDomain?: string;
}

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
