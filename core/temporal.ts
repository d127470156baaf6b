import {
  Client, Connection, isGrpcServiceError, ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import {
  searchAttributeKeys, taskWorkflows, workflowIds, type TaskType, type TaskWorkflowInput, type TransactionalBatchInput,
} from './workflow-contracts';

/** A start normally takes milliseconds; past this the caller answers 503 and the client retries. */
const START_DEADLINE_MS = 5000;

/** A Temporal client for the API, the SMTP listener, the CLI and benchmarks. */
export async function connectTemporal(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address, connectTimeout: '5 seconds' });
  return new Client({ connection, namespace });
}

/**
 * Starts the workflow that sends one accepted request. The id is derived from the request,
 * and an existing execution with that id counts as success: a retried start is harmless.
 */
export async function startTransactionalBatch(
  client: Client, taskQueue: string, input: TransactionalBatchInput, batchId: string,
): Promise<string> {
  const workflowId = workflowIds.transactional(input.account, input.requestId);
  try {
    await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.start('TransactionalBatch', {
      taskQueue,
      workflowId,
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: searchAttributeKeys.account, value: input.account },
        { key: searchAttributeKeys.batch, value: batchId },
      ],
      staticSummary: `Transactional send ${input.requestId} for ${input.account}`,
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
