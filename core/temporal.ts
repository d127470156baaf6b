import {
  Client, Connection, isGrpcServiceError, ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy,
} from '@temporalio/client';
import { searchAttributeKeys, workflowIds, type TransactionalBatchInput } from './workflow-contracts';

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
  client: Client, taskQueue: string, input: TransactionalBatchInput,
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
        { key: searchAttributeKeys.batch, value: input.requestId },
      ],
      staticSummary: `Transactional send ${input.requestId} for ${input.account}`,
    }));
  } catch (error) {
    // Already ran to completion under this id: the request was accepted before.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

/** True for errors of the Temporal service or of the connection to it (the caller answers 503). */
export function isTemporalFault(error: unknown): boolean {
  return error instanceof ServiceError || isGrpcServiceError(error);
}
