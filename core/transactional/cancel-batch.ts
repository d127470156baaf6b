// DELETE /v1/mail/batches/{batch_id}: every request of the batch is marked cancelled in the store,
// which is what the send activity reads: a request not yet sent is dropped when its turn comes,
// one being sent stops within about a second (messages already accepted by the relay stay
// sent). Each unsent message gets a `track.mail.dropped` event. A request waiting for its
// launch_date has a workflow of its own, cancelled too, so its dropped events come at once.
// The account's requests are looked up by the batch id they were stored with (an index on a real
// MongoDB; a scan on the embedded store, where this rare call can afford it).
import { requestWorkflowCancel } from '../../adapters/temporal/client';
import { workflowIds } from '../../adapters/temporal/contracts';
import { errors, fieldError } from '../shared/errors';
import type { AcceptDeps } from './accept';

/** The longest batch id a filter or a cancel takes (a batch_code's is far shorter). */
const MAX_BATCH_ID = 200;

/** How many requests of the batch were asked to stop (0 when there is no such batch). */
export async function cancelBatch(deps: AcceptDeps, account: string, batchId: string): Promise<number> {
  if (batchId.length > MAX_BATCH_ID) throw errors.validation({ batch_id: fieldError('max_length_exceeded', `At most ${MAX_BATCH_ID} characters`) });
  if (!batchId.startsWith(`${account}_transactional_`)) return 0;
  const requests = await deps.store.sendRequests
    .find({ account, batchId })
    .project<{ _id: string; launchAt?: Date }>({ _id: 1, launchAt: 1 })
    .limit(100_000)
    .toArray();
  if (requests.length === 0) return 0;
  await deps.store.sendRequests.updateMany({ account, batchId, cancelledAt: { $exists: false } }, { $set: { cancelledAt: new Date() } });
  const now = Date.now();
  for (const { _id, launchAt } of requests) {
    if (launchAt && launchAt.getTime() > now) await requestWorkflowCancel(deps.temporal, workflowIds.scheduledSend(account, _id));
  }
  return requests.length;
}
