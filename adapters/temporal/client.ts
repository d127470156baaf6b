import {
  Client, Connection, isGrpcServiceError, ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import {
  searchAttributeKeys, RING_SIGNAL, taskWorkflows, workflowIds,
  type AccountSenderInput, type ScheduledSendInput, type TaskType, type TaskWorkflowInput, type TriggerAutomationInput,
} from './contracts';
import { TurnBatch } from '../batching/turn-batch';
import { firstConnect } from '../first-connect';

/** A start normally takes milliseconds; past this the caller answers 503 and the client retries. */
const START_DEADLINE_MS = 5000;

/** A Temporal client for the API, the SMTP listener, the CLI and benchmarks. */
export async function connectTemporal(address: string, namespace: string): Promise<Client> {
  const connection = await firstConnect(() => Connection.connect({ address, connectTimeout: '5 seconds' }));
  return new Client({ connection, namespace });
}

/** A client that connects on its first call (an outage then shows as that call's failure). */
export function lazyTemporal(address: string, namespace: string): Client {
  return new Client({ connection: Connection.lazy({ address, connectTimeout: '1 second' }), namespace });
}

/** What a ring needs: the Temporal client and the task queue of the senders. */
export interface SignalDeps { temporal: Client; taskQueue: string }

/**
 * Rings the account's AccountSender (core/transactional/doorbell.ts), starting it when none runs
 * (signalWithStart). Rings of an account in the same turn of the event loop are one call
 * (adapters/batching/turn-batch.ts); each caller waits for its acknowledgement.
 */
export function ringAccountSender(deps: SignalDeps, account: string): Promise<void> {
  return accountRings(deps, account).add();
}

const ringBatches = new WeakMap<Client, Map<string, TurnBatch<void, void>>>();

function accountRings(deps: SignalDeps, account: string): TurnBatch<void, void> {
  const { temporal: client, taskQueue } = deps;
  let batches = ringBatches.get(client);
  if (!batches) ringBatches.set(client, (batches = new Map()));
  const key = `${taskQueue}\u0000${account}`;
  let batch = batches.get(key);
  if (!batch) {
    batch = new TurnBatch<void, void>(async (rings) => {
      await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.signalWithStart('AccountSender', {
        taskQueue,
        workflowId: workflowIds.accountSender(account),
        args: [{ account } satisfies AccountSenderInput],
        signal: RING_SIGNAL,
        signalArgs: [],
        typedSearchAttributes: [{ key: searchAttributeKeys.account, value: account }],
        staticSummary: `Sends of ${account}`,
      }));
      return rings.map(() => ({ value: undefined }));
    });
    batches.set(key, batch);
  }
  return batch;
}

/**
 * Starts the workflow of a request that waits for its launch_date. The id is derived from the
 * request, and an existing execution with that id counts as success: a retried start is harmless.
 */
export async function startScheduledSend(client: Client, taskQueue: string, input: ScheduledSendInput): Promise<string> {
  const workflowId = workflowIds.scheduledSend(input.account, input.requestId);
  try {
    await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.start('ScheduledSend', {
      taskQueue,
      workflowId,
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: searchAttributeKeys.account, value: input.account },
        { key: searchAttributeKeys.batch, value: input.batchId },
      ],
      staticSummary: `Send ${input.requestId} of ${input.account} at ${input.launchAt}`,
    }));
  } catch (error) {
    // Already ran to completion under this id: the request was accepted before.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

/**
 * Starts the workflow that carries out a task; its id is derived from the task (and a campaign
 * launch's from its campaign too), so a retried start is harmless: a workflow running under that
 * id counts as started, and one that ran to its end is not started again (a task's workflow runs
 * once). A campaign launch is searchable by its campaign (HeraldCampaign) beside its account.
 */
export async function startTaskWorkflow(
  client: Client, taskQueue: string, type: TaskType, input: TaskWorkflowInput, options: { workflowId?: string; campaignId?: number } = {},
): Promise<string> {
  const workflowId = options.workflowId ?? workflowIds.task(input.account, input.taskId);
  const campaign = options.campaignId === undefined ? [] : [{ key: searchAttributeKeys.campaign, value: String(options.campaignId) }];
  try {
    await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.start(taskWorkflows[type], {
      taskQueue,
      workflowId,
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [{ key: searchAttributeKeys.account, value: input.account }, ...campaign],
      staticSummary: options.campaignId === undefined
        ? `Task ${input.taskId} (${type}) of ${input.account}`
        : `Campaign ${options.campaignId} of ${input.account} (task ${input.taskId})`,
    }));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

/**
 * Starts the workflow of an accepted custom trigger event, searchable by account and contact.
 * The id is derived from the event, and an existing execution with that id counts as success:
 * a retried start (the same event id) starts nothing twice.
 */
export async function startTriggerAutomation(client: Client, taskQueue: string, input: TriggerAutomationInput & { email: string }): Promise<string> {
  const { account, eventId, email } = input;
  const workflowId = workflowIds.triggerEvent(account, eventId);
  try {
    await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.start('TriggerAutomation', {
      taskQueue,
      workflowId,
      args: [{ account, eventId } satisfies TriggerAutomationInput],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: searchAttributeKeys.account, value: account },
        { key: searchAttributeKeys.contact, value: email },
      ],
      staticSummary: `Trigger event ${eventId} of ${account} for ${email}`,
    }));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

/** Asks a workflow to cancel; one that already ended (or never started) is left as it is. */
export async function requestWorkflowCancel(client: Client, workflowId: string): Promise<void> {
  try {
    await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.getHandle(workflowId).cancel());
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

/** Signals a running workflow; false when it is not running (it ended, or never started). */
export async function signalWorkflow(client: Client, workflowId: string, signal: string): Promise<boolean> {
  try {
    await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.getHandle(workflowId).signal(signal));
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** True for errors of the Temporal service or of the connection to it (the caller answers 503). */
export function isTemporalFault(error: unknown): boolean {
  return error instanceof ServiceError || isGrpcServiceError(error);
}
