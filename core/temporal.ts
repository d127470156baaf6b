import {
  Client, Connection, isGrpcServiceError, ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import {
  searchAttributeKeys, SEND_SIGNAL, taskWorkflows, workflowIds,
  type AccountSenderInput, type QueuedSend, type ScheduledSendInput, type TaskType, type TaskWorkflowInput,
} from './workflow-contracts';

/** A start normally takes milliseconds; past this the caller answers 503 and the client retries. */
const START_DEADLINE_MS = 5000;

/** A Temporal client for the API, the SMTP listener, the CLI and benchmarks. */
export async function connectTemporal(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address, connectTimeout: '5 seconds' });
  return new Client({ connection, namespace });
}

/**
 * Hands an accepted request to its account's AccountSender, starting that workflow when none
 * runs (signalWithStart): one call, at the rate Temporal takes signals, rather than a workflow
 * per request. A request signalled twice sends nothing twice (the send ledger decides).
 */
export async function signalAccountSender(
  deps: { temporal: Client; taskQueue: string; searchAttributeLimit: number }, account: string, queued: QueuedSend,
): Promise<string> {
  const { temporal: client, taskQueue, searchAttributeLimit } = deps;
  const workflowId = workflowIds.accountSender(account);
  await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.signalWithStart('AccountSender', {
    taskQueue,
    workflowId,
    args: [{ account, searchAttributeLimit } satisfies AccountSenderInput],
    signal: SEND_SIGNAL,
    signalArgs: [queued],
    typedSearchAttributes: [{ key: searchAttributeKeys.account, value: account }],
    staticSummary: `Sends of ${account}`,
  }));
  return workflowId;
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

/** Starts the workflow that carries out a task; its id is derived from the task, so a retried start is harmless. */
export async function startTaskWorkflow(client: Client, taskQueue: string, type: TaskType, input: TaskWorkflowInput): Promise<string> {
  const workflowId = workflowIds.task(input.account, input.taskId);
  await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.start(taskWorkflows[type], {
    taskQueue,
    workflowId,
    args: [input],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    typedSearchAttributes: [{ key: searchAttributeKeys.account, value: input.account }],
    staticSummary: `Task ${input.taskId} (${type}) of ${input.account}`,
  }));
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

/** True for errors of the Temporal service or of the connection to it (the caller answers 503). */
export function isTemporalFault(error: unknown): boolean {
  return error instanceof ServiceError || isGrpcServiceError(error);
}
