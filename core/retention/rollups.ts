// What the reports keep of messages whose history was pruned: their counts, rolled up before their
// events were removed (./rollup-writer.ts), read here by the reports that add them to what the
// events still say: the daily stats (a document per account and day), a campaign's or an
// automation's figures (a document per batch: its types' counts, and a campaign's timeline hours
// and most clicked links). Transactional batches keep nothing: their requests go with their events.
import type { RolledTypeCounts, RollupDoc, Store } from '../../adapters/store/store';

/** A batch whose counts are kept: a campaign's or an automation's (core/campaigns/model.ts, core/automations/model.ts). */
export function isKeptBatch(account: string, batchId: string): boolean {
  return batchId.startsWith(`${account}_`) && /^_(?:campaign|automation)_\d{1,15}$/.test(batchId.slice(account.length));
}

/** A campaign's batch: its timeline and links are kept too. */
export function isCampaignBatch(account: string, batchId: string): boolean {
  return batchId.startsWith(`${account}_`) && /^_campaign_\d{1,15}$/.test(batchId.slice(account.length));
}

export const dayRollupId = (account: string, day: string) => `${account}:day:${day}`;
export const batchRollupId = (account: string, batchId: string) => `${account}:batch:${batchId}`;

/** Rolled types are stored without this prefix (a field name takes no dot). */
const TYPE_PREFIX = 'track.mail.';
export const storedType = (trackType: string) => (trackType.startsWith(TYPE_PREFIX) ? trackType.slice(TYPE_PREFIX.length) : trackType);

/** The rolled-up counts of the account's days from `from` to `to` (YYYY-MM-DD, both included). */
export async function rolledDays(store: Store, account: string, from: string, to: string): Promise<Array<{ day: string; counts: Record<string, number> }>> {
  const docs = await store.rollups.find({ account, kind: 'day', key: { $gte: from, $lte: to } }).project<Pick<RollupDoc, 'key' | 'counts'>>({ key: 1, counts: 1 }).toArray();
  return docs.map((doc) => ({ day: doc.key, counts: doc.counts ?? {} }));
}

/** The rolled-up counts of the account's batches, by batch_id, each by track_type. */
export async function rolledBatches(store: Store, account: string, batchIds: string[]): Promise<Map<string, Map<string, RolledTypeCounts>>> {
  const kept = batchIds.filter((batchId) => isKeptBatch(account, batchId));
  const result = new Map<string, Map<string, RolledTypeCounts>>();
  if (kept.length === 0) return result;
  const docs = await store.rollups.find({ _id: { $in: kept.map((batchId) => batchRollupId(account, batchId)) }, account })
    .project<Pick<RollupDoc, 'key' | 'types'>>({ key: 1, types: 1 }).toArray();
  for (const doc of docs) {
    result.set(doc.key, new Map(Object.entries(doc.types ?? {}).map(([type, counts]) => [`${TYPE_PREFIX}${type}`, counts])));
  }
  return result;
}

/** A campaign batch's rolled-up timeline hours and links (empty when nothing of it was pruned). */
export async function rolledReport(store: Store, account: string, batchId: string): Promise<Required<Pick<RollupDoc, 'hours' | 'links'>>> {
  const doc = await store.rollups.findOne({ _id: batchRollupId(account, batchId), account }, { projection: { hours: 1, links: 1 } });
  return { hours: doc?.hours ?? {}, links: doc?.links ?? [] };
}
