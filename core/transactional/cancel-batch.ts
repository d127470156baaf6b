// DELETE /v1/mail/batches/{batch_id}: cancels the workflow of every request of the batch. A
// workflow waiting for its launch_date ends without sending; one sending stops before its next
// message; either records what it did not send as dropped (workflows/transactional-batch.ts). A
// request already finished is not touched. The account's requests are looked up by the batch id
// they were stored with (an index on a real MongoDB; a scan on the embedded store, where this rare
// call can afford it).
import { requestWorkflowCancel } from '../temporal';
import { workflowIds } from '../workflow-contracts';
import type { AcceptDeps } from './accept';

/** How many requests of the batch were asked to stop (0 when there is no such batch). */
export async function cancelBatch(deps: AcceptDeps, account: string, batchId: string): Promise<number> {
  if (!batchId.startsWith(`${account}_transactional_`) || batchId.length > 200) return 0;
  const requests = await deps.store.sendRequests.find({ account, batchId }).project<{ _id: string }>({ _id: 1 }).limit(100_000).toArray();
  for (const { _id } of requests) await requestWorkflowCancel(deps.temporal, workflowIds.transactional(account, _id));
  return requests.length;
}
