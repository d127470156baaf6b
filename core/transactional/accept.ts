import type { Client } from '@temporalio/client';
import { newId } from '../ids';
import type { Store } from '../store';
import { startTransactionalBatch } from '../temporal';
import { toStoredFields, type AcceptedRequest } from './request';

export interface AcceptDeps { store: Store; temporal: Client; taskQueue: string }

/**
 * Durable acceptance, shared by HTTP and SMTP: record the request (the claim check), then start
 * its workflow. Only when both succeeded is the request accepted; if the start fails the record
 * is removed, so a caller answering 503/451 leaves nothing half-recorded. Returns the request id.
 * Errors are the store's or Temporal's own: callers turn them into the error model (core/faults).
 */
export async function acceptSendRequest(deps: AcceptDeps, request: AcceptedRequest): Promise<string> {
  const requestId = newId();
  const { account } = request;
  await deps.store.sendRequests.insertOne({ _id: requestId, ...toStoredFields(request), acceptedAt: new Date() });
  try {
    await startTransactionalBatch(deps.temporal, deps.taskQueue, { account, requestId });
  } catch (error) {
    await deps.store.sendRequests.deleteOne({ _id: requestId, account }).catch(() => undefined);
    throw error;
  }
  return requestId;
}
