// What workflows share with the rest of Herald: names, ids, search attributes and input types.
// Pure definitions only: this is the one core/ file workflow code may import (it is loaded
// inside the workflow sandbox too).
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

/** Input of the TransactionalBatch workflow. */
export interface TransactionalBatchInput {
  account: string;
  /** Id of the stored, accepted request (claim check): never the body itself. */
  requestId: string;
}
