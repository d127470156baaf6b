// How many events of each type the campaigns' messages have, and of how many messages: the
// counts of their batches (campaignBatchId), one aggregate per account (core/tracking/batch-counts.ts).
import type { CampaignDoc, Store } from '../../adapters/store/store';
import { countBatchEvents, type EventCounts } from '../tracking/batch-counts';
import { campaignBatchId } from './model';

export type { EventCounts, TypeCounts } from '../tracking/batch-counts';

/** The counts of each campaign, by its `_id`. */
export async function countCampaignEvents(store: Store, campaigns: CampaignDoc[], types: readonly string[]): Promise<Map<string, EventCounts>> {
  const result = new Map<string, EventCounts>(campaigns.map((campaign) => [campaign._id, new Map()]));
  const byAccount = new Map<string, CampaignDoc[]>();
  for (const campaign of campaigns) byAccount.set(campaign.account, [...(byAccount.get(campaign.account) ?? []), campaign]);
  await Promise.all([...byAccount].map(async ([account, ofAccount]) => {
    const campaignOf = new Map(ofAccount.map((campaign) => [campaignBatchId(account, campaign.id), campaign._id]));
    const counts = await countBatchEvents(store, account, [...campaignOf.keys()], types);
    for (const [batchId, ofBatch] of counts) {
      const id = campaignOf.get(batchId);
      if (id !== undefined) result.set(id, ofBatch);
    }
  }));
  return result;
}
