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
  /** The contact (lowercase email) a trigger event and its automation runs are about. */
  contact: defineSearchAttributeKey('HeraldContact', SearchAttributeType.KEYWORD),
};

/** Deterministic workflow ids: retrying a start finds the same execution. */
export const workflowIds = {
  /** The account's one sender: rung when a request waits in its send queue and no drain is running. */
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
  /** The Temporal Schedule that rings senders whose queue waits unattended (core/transactional/queue-sweep.ts), one per task queue. */
  sendQueueSweeper: (taskQueue: string) => `send-queue-sweeper-${taskQueue}`,
  /** The Temporal Schedule that starts the workflows of tasks recorded but never started (core/tasks/unstarted.ts), one per task queue. */
  taskSweeper: (taskQueue: string) => `task-sweeper-${taskQueue}`,
  /** The Temporal Schedule that prunes history older than each account's retention (core/retention/run.ts), one per task queue. */
  retentionSweeper: (taskQueue: string) => `retention-${taskQueue}`,
  /** The Temporal Schedule that reads the bounce mailbox of the relays file (core/bounces/mailbox.ts), one per task queue. */
  bounceMailboxReader: (taskQueue: string) => `bounce-mailbox-${taskQueue}`,
  /** One accepted custom trigger event: matches the automations and starts their runs. */
  triggerEvent: (account: string, eventId: string) => `trigger-${account}-${eventId}`,
  /** One automation run started by a trigger event (a child of the event's workflow). */
  automationRun: (account: string, eventId: string, automationId: number) => `trigger-${account}-${eventId}-a${automationId}`,
};

/** Workflows that carry out a task of the account API (see core/tasks/tasks.ts), by task type. */
export const taskWorkflows = {
  CONTACT_IMPORT: 'ContactImport',
  CONTACT_EXPORT_TASK: 'ContactExport',
  CAMPAIGN_LAUNCH: 'CampaignLaunch',
  /** A SENT campaign sent again to the recipients whose message failed: the same workflow, a later round. */
  CAMPAIGN_RESEND: 'CampaignLaunch',
  /** An account copied from a server speaking the original's API (core/migration/run.ts). */
  ACCOUNT_MIGRATION: 'AccountMigration',
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

/**
 * The doorbell: an accepted request waits in its account's send queue (the store's outbox), and
 * the API rings the account's AccountSender only when no sender is draining that queue. No arguments.
 */
export const RING_SIGNAL = 'ring';

/** Input of the AccountSender workflow; a continued run carries whether it was rung and when a deferred request falls due. */
export interface AccountSenderInput {
  account: string;
  /** Rung while the previous run was finishing: drain at once. */
  rung?: boolean;
  /** The earliest time (epoch ms) a deferred request in the queue is due. */
  nextDueAt?: number;
}

/** Input of the ScheduledSend workflow: one request that waits for its launch_date (ISO 8601). */
export interface ScheduledSendInput extends QueuedSend {
  account: string;
  launchAt: string;
}

/** Input of the send activities: requests of one account, sent together (a scheduled request's, alone). */
export interface SendRequestsInput {
  account: string;
  requests: QueuedSend[];
}

/** What a send attempt did: counts of messages, and the requests with recipients the relay deferred. */
export interface SendOutcome {
  sent: number;
  failed: number;
  deferred: string[];
}

/** Input of the drainSendQueue activity: the account whose send queue it drains. */
export interface DrainInput { account: string }

/**
 * What a drain did before its queue stayed empty: messages sent and failed, requests left in the
 * queue (deferred by the relay), when the first of those falls due (epoch ms), and `again` when
 * it stopped because its time was up, with requests ready to send: the next drain starts at once.
 */
export interface DrainResult { sent: number; failed: number; left: number; nextDueAt?: number; again?: boolean }

/** Input of giveUpSendQueue: the drain's retries ran out; requests accepted before `acceptedBefore` (epoch ms) are recorded as failed. */
export interface QueueGiveUpInput { account: string; acceptedBefore: number; reason: string }

/** What a sweep of the send queues did: senders rung, and rings that failed (the next sweep tries again). */
export interface SendQueueSweepResult { rung: number; failures: number }

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

/**
 * How a CampaignLaunch works through its snapshot: the worker's settings (core/campaigns/launch.ts
 * has the defaults; tests make pages small and deferral retries quick).
 */
export interface CampaignTuning {
  /** Recipients per page activity. */
  pageSize: number;
  /** Page activities running at once. */
  pagesInFlight: number;
  /** A run continues as new after this many pages (or sooner, when Temporal suggests it). */
  pagesPerRun: number;
  /** Sends of a recipient the relay defers (4xx) before it is recorded as failed (a soft bounce): the deferral policy's `sends`. */
  deferredSends: number;
  /** The wait before a deferred recipient's second send (the deferral policy's `firstDelayMs`); it doubles for each later one. */
  deferredFirstDelayMs: number;
}

/** What a CampaignLaunch's first activity finds: the campaign, the round, when to send. */
export interface CampaignLaunchStart {
  campaignId: number;
  /** 0: the launch; n: resend round n (to the recipients whose message of an earlier round failed). */
  round: number;
  /** When sending starts (epoch ms): the campaign's launchDate; now for a resend. */
  launchAt: number;
  tuning: CampaignTuning;
}

/** Outcomes of a campaign's messages, as the pages counted them. */
export interface CampaignSendCounts { sent: number; failed: number; dropped: number }

/** A recipient the relay deferred (4xx): sent again from `dueAt` (workflow time, epoch ms). */
export interface DeferredRecipient { seq: number; sends: number; dueAt: number }

/** What a CampaignLaunch run carries into the next one (continueAsNew): the walk through its snapshot. */
export interface CampaignLaunchState extends CampaignLaunchStart {
  /** Recipients in the snapshot; undefined while it is being taken (pages are sent meanwhile). */
  total?: number;
  /** The snapshot seq the next page starts at: every recipient before it was sent (or is in `deferred`). */
  next: number;
  counts: CampaignSendCounts;
  deferred: DeferredRecipient[];
  /** Paused by a signal: no page starts until resumed. */
  paused: boolean;
}

/** Input of the CampaignLaunch workflow (tasks CAMPAIGN_LAUNCH and CAMPAIGN_RESEND); a continued run carries its state. */
export interface CampaignLaunchInput extends TaskWorkflowInput {
  carried?: CampaignLaunchState;
}

/** The campaign a launch's activities work on. */
export interface CampaignTaskInput extends TaskWorkflowInput { campaignId: number; round: number }

/**
 * One page of a campaign's snapshot: the recipients with seq in [from, to), or the listed `seqs`
 * (deferred recipients sent again). `walked`: recipients before this page, for the task's progress;
 * `total`: the snapshot's size, undefined while it is being taken.
 */
export interface CampaignPageInput extends CampaignTaskInput { from: number; to: number; seqs?: number[]; total?: number; walked: number }

/** What a page did; `deferred`: the seqs the relay deferred (no ledger row yet). */
export interface CampaignPageResult extends CampaignSendCounts { deferred: number[] }

/** Input of the TriggerAutomation workflow: the stored event (adapters/store/store.ts TriggerEventDoc) is the claim check. */
export interface TriggerAutomationInput { account: string; eventId: string }

/** What matching an event found: its contact, and the automations it starts (a run each). */
export interface TriggerMatch { email: string; automationIds: number[] }

/** Input of the AutomationRun workflow: one automation run for one event (its AutomationRunDoc). */
export interface AutomationRunInput { account: string; eventId: string; automationId: number }

/** A run's steps as its workflow sees them: the content stays in the run's record. */
export type AutomationStepPlan = { type: 'email' } | { type: 'wait'; ms: number };

/** One step of a run (its index in the run's steps). */
export interface AutomationStepInput extends AutomationRunInput { step: number }

/**
 * What an email step did: `sent`, `dropped` (unsubscribed or suppressed: a track.mail.dropped),
 * `failed` (the relay refused it: a bounce event), `deferred` (the relay answered 4xx: no ledger
 * row, the workflow sends it again), or `exited`: the automation was deactivated (or deleted)
 * since the run began, so nothing was sent and the run stops.
 */
export type AutomationStepOutcome = 'sent' | 'dropped' | 'failed' | 'deferred' | 'exited';

/** How a run ended: every step done, stopped by a deactivation, or an email step that could not be sent. */
export type AutomationRunState = 'running' | 'completed' | 'exited' | 'failed';

/** Input of finishAutomationRun. */
export interface AutomationRunEnd extends AutomationRunInput { state: Exclude<AutomationRunState, 'running'>; reason?: string }
