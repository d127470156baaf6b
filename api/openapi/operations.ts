// Every operation of the HTTP API, as each route file declares its own. A route file added to
// the app is added here too: test/integration/openapi.test.ts fails on a route left out.
import { accountInfoOperations } from '../account/account-info';
import { activityOperations } from '../account/activity';
import { automationOperations } from '../account/automations';
import { batchOperations } from '../account/batches';
import { bounceOperations } from '../account/bounces';
import { campaignContentOperations } from '../account/campaign-contents';
import { campaignPreviewOperations } from '../account/campaign-preview';
import { campaignLaunchOperations } from '../account/campaign-launch';
import { campaignReportOperations } from '../account/campaign-reports';
import { campaignOperations } from '../account/campaigns';
import { contactExportOperations } from '../account/contact-export';
import { migrationOperations } from '../account/migrations';
import { contactImportOperations } from '../account/contact-import';
import { contactOperations } from '../account/contacts';
import { dkimOperations } from '../account/dkim';
import { fieldOperations } from '../account/fields';
import { integrationOperations } from '../account/integrations';
import { interestOperations } from '../account/interests';
import { listOperations } from '../account/lists';
import { relayOperations } from '../account/relays';
import { retentionOperations } from '../account/retention';
import { loginOperations } from '../account/login';
import { statsOperations } from '../account/stats';
import { suppressionOperations } from '../account/suppressions';
import { taskOperations } from '../account/tasks';
import { templateOperations } from '../account/templates';
import { userOperations } from '../account/users';
import { webhookOperations } from '../account/webhooks';
import { consoleOperations } from '../console/router';
import { feedbackOperations } from '../feedback/operations';
import { healthOperations } from '../health';
import { metricsOperations } from '../metrics';
import { optinOperations } from '../optin/router';
import { sendOperations } from '../transactional/router';
import { trackingOperations } from '../tracking/operations';
import { triggerOperations } from '../triggers/router';
import type { OperationSpec } from './operation';
import { openapiOperations } from './router';

export const operations: OperationSpec[] = [
  ...healthOperations,
  ...metricsOperations,
  ...openapiOperations,
  ...consoleOperations,
  ...sendOperations,
  ...feedbackOperations,
  ...loginOperations,
  ...accountInfoOperations,
  ...retentionOperations,
  ...userOperations,
  ...integrationOperations,
  ...dkimOperations,
  ...relayOperations,
  ...listOperations,
  ...interestOperations,
  ...fieldOperations,
  ...templateOperations,
  ...contactOperations,
  ...contactExportOperations,
  ...migrationOperations,
  ...contactImportOperations,
  ...taskOperations,
  ...activityOperations,
  ...statsOperations,
  ...suppressionOperations,
  ...bounceOperations,
  ...batchOperations,
  ...webhookOperations,
  ...campaignOperations,
  ...campaignContentOperations,
  ...campaignPreviewOperations,
  ...campaignLaunchOperations,
  ...campaignReportOperations,
  ...automationOperations,
  ...optinOperations,
  ...trackingOperations,
  ...triggerOperations,
];
