// The address a message went to, from what its send is made of rather than its ledger row: the
// stored request (transactional), the recipient snapshot (campaign) or the run (automation), as
// the online version reads them (./online-version.ts). For a message whose send is not recorded
// yet (./held-hits.ts); undefined when that record is gone too (pruned by retention) or never was.
import type { Store } from '../../adapters/store/store';
import type { MessageRef } from '../content/tracking/token';
import { parseCampaignRequestId } from '../campaigns/model';
import { snapshotRecipients } from '../campaigns/snapshot';
import { automationRunDocId, parseAutomationRequestId } from '../automations/model';
import { readHttpBody, readSmtpSubmission } from '../transactional/request';

export async function recipientOf(store: Store, ref: MessageRef): Promise<string | undefined> {
  const { account } = ref;
  const campaign = parseCampaignRequestId(ref.requestId);
  if (campaign) {
    const doc = await store.campaigns.findOne({ _id: `${account}:${campaign.campaignId}`, account }, { projection: { launch: 1 } });
    if (!doc?.launch) return undefined;
    const [row] = (await snapshotRecipients(store, account, campaign.campaignId, doc.launch.taskId, [ref.index])).recipients;
    return row?.email;
  }
  const automation = parseAutomationRequestId(ref.requestId);
  if (automation) {
    const run = await store.automationRuns.findOne({ _id: automationRunDocId(account, automation.automationId, automation.eventId), account });
    return run?.steps[ref.index]?.type === 'email' ? run.email : undefined;
  }
  const request = await store.sendRequests.findOne({ _id: ref.requestId, account });
  if (!request) return undefined;
  if (request.source === 'smtp') return readSmtpSubmission(request).rcptTo[ref.index];
  return readHttpBody(request).recipients[ref.index]?.to.email;
}
