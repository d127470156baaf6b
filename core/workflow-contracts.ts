// What workflows share with the rest of Herald: names, ids, search attributes and input types.
// Pure definitions only: this is the one core/ file workflow code may import (it is loaded
// inside the workflow sandbox too).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes operators filter on in the Temporal UI (registered at server start). */
export const searchAttributeKeys = {
  account: defineSearchAttributeKey('HeraldAccount', SearchAttributeType.KEYWORD),
  batch: defineSearchAttributeKey('HeraldBatch', SearchAttributeType.KEYWORD),
  /** The batch ids an AccountSender run sent (a list: one run sends many requests). */
  batches: defineSearchAttributeKey('HeraldBatches', SearchAttributeType.KEYWORD_LIST),
  campaign: defineSearchAttributeKey('HeraldCampaign', SearchAttributeType.KEYWORD),
  automation: defineSearchAttributeKey('HeraldAutomation', SearchAttributeType.KEYWORD),
};

/** Deterministic workflow ids: retrying a start finds the same execution. */
export const workflowIds = {
  /** The account's one gathering workflow: every immediate send of the account is signalled to it. */
  accountSender: (account: string) => `sender-${account}`,
  /** A request with a launch_date in the future waits in a workflow of its own. */
  scheduledSend: (account: string, requestId: string) => `tx-${account}-${requestId}`,
  task: (account: string, taskId: number) => `task-${account}-${taskId}`,
  /** A campaign's launch (its CAMPAIGN_LAUNCH task): a campaign stopped and launched again gets a new task, so a new id. */
  campaign: (account: string, campaignId: number, taskId: number) => `campaign-${account}-${campaignId}-${taskId}`,
  /** The long-lived delivery workflow of one webhook endpoint. */
  webhookDelivery: (account: string, endpointId: number) => `webhook-${account}-${endpointId}`,
  /** The Temporal Schedule of the webhook sweeper, one per task queue (core/webhooks/lifecycle.ts). */
  webhookSweeper: (taskQueue: string) => `webhook-sweeper-${taskQueue}`,
};

/** Workflows that carry out a task of the account API (see core/tasks.ts), by task type. */
export const taskWorkflows = {
  CONTACT_IMPORT: 'ContactImport',
  CONTACT_EXPORT_TASK: 'ContactExport',
  CAMPAIGN_LAUNCH: 'CampaignLaunch',
} as const;
export type TaskType = keyof typeof taskWorkflows;

/** Input of every task workflow: the task's record holds its parameters (claim check). */
export interface TaskWorkflowInput {
  account: string;
  taskId: number;
}

/** An accepted send request, as the send workflows pass it around (its record is the claim check). */
export interface QueuedSend {
  requestId: string;
  /** The batch id of its events: searchable, and named by the bounce of a request whose record is gone. */
  batchId: string;
}

/** The signal that hands accepted requests (an array of QueuedSend) to their account's AccountSender. */
export const SEND_SIGNAL = 'send';

/** A request whose relay deferred some recipients (4xx): sent again from `dueAt` (epoch ms). */
export interface DeferredSend extends QueuedSend { attempt: number; dueAt: number }

/** Input of the AccountSender workflow; a continued run carries what its predecessor still held. */
export interface AccountSenderInput {
  account: string;
  /** The Temporal server's limit on a search attribute value, in bytes (2048 when absent). */
  searchAttributeLimit?: number;
  queued?: QueuedSend[];
  deferred?: DeferredSend[];
}

/** Input of the ScheduledSend workflow: one request that waits for its launch_date (ISO 8601). */
export interface ScheduledSendInput extends QueuedSend {
  account: string;
  launchAt: string;
}

/** Input of the send activities: requests of one account, sent together. */
export interface SendRequestsInput {
  account: string;
  requests: QueuedSend[];
  /**
   * Requests the AccountSender still held (queued or deferred) when it took this attempt's: the
   * worker shows it as herald_gathering_backlog. Absent from other senders (a scheduled send).
   */
  backlog?: number;
}

/** What a send attempt did: counts of messages, and the requests with recipients the relay deferred. */
export interface SendOutcome {
  sent: number;
  failed: number;
  deferred: string[];
}

/** A failed webhook POST's events wait this long for their one retry (the spec: one retry after 1 minute). */
export const WEBHOOK_RETRY_DELAY_MS = 60_000;

/** A webhook retry batch the delivery workflow waits for: its record's id, due at `dueAt` (workflow time, epoch ms). */
export interface PendingWebhookRetry { retryId: string; dueAt: number }

/** Input of the WebhookDelivery workflow; a continued run carries the retries it was waiting for. */
export interface WebhookDeliveryInput {
  account: string;
  endpointId: number;
  retries?: PendingWebhookRetry[];
  /** How long one delivery activity keeps reading and posting before it returns (default 60 s; 0: one read). */
  passMs?: number;
}

/** Input of the deliverWebhookEvents activity: one pass over the endpoint's new events. */
export interface WebhookPassInput { account: string; endpointId: number; passMs: number }

/**
 * What a delivery pass did. `idle`: nothing left to read when it ended; `active`: it stopped with
 * more to do (time, or a failed POST whose retry the workflow must schedule); `disabled`/`gone`:
 * the endpoint was disabled or deleted. `retries`: batches recorded for a retry, each due
 * `delayMs` after the pass returned.
 */
export interface WebhookPassResult {
  state: 'active' | 'idle' | 'disabled' | 'gone';
  retries: Array<{ retryId: string; delayMs: number }>;
}

/** Input of the retryWebhookBatch activity. */
export interface WebhookRetryInput { account: string; endpointId: number; retryId: string }

/** Signals of a CampaignLaunch workflow: pause stops taking pages until resume. */
export const CAMPAIGN_PAUSE_SIGNAL = 'pause';
export const CAMPAIGN_RESUME_SIGNAL = 'resume';
