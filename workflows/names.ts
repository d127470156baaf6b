// Names shared by workflows, the worker, the API and the embedded Temporal server.
// Pure definitions only: this file is loaded inside the workflow sandbox too.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes operators filter on in the Temporal UI (registered at server start). */
export const searchAttributeKeys = {
  account: defineSearchAttributeKey('HeraldAccount', SearchAttributeType.KEYWORD),
  batch: defineSearchAttributeKey('HeraldBatch', SearchAttributeType.KEYWORD),
  campaign: defineSearchAttributeKey('HeraldCampaign', SearchAttributeType.KEYWORD),
  automation: defineSearchAttributeKey('HeraldAutomation', SearchAttributeType.KEYWORD),
};

/** Deterministic workflow ids: retrying a start finds the same execution. */
export const workflowIds = {
  transactional: (account: string, batch: string) => `tx-${account}-${batch}`,
};
