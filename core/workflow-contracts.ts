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
  task: (account: string, taskId: number) => `task-${account}-${taskId}`,
};

/** Workflows that carry out a task of the account API (see core/tasks.ts), by task type. */
export const taskWorkflows = {
  CONTACT_IMPORT: 'ContactImport',
  CONTACT_EXPORT_TASK: 'ContactExport',
} as const;
export type TaskType = keyof typeof taskWorkflows;

/** Input of every task workflow: the task's record holds its parameters (claim check). */
export interface TaskWorkflowInput {
  account: string;
  taskId: number;
}

/** Input of the TransactionalBatch workflow. */
export interface TransactionalBatchInput {
  account: string;
  /** Id of the stored, accepted request (claim check): never the body itself. */
  requestId: string;
  /** The request's launch_date (ISO 8601): the workflow waits for it in a durable timer. */
  launchAt?: string;
}
