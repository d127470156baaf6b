// The counts a page of pruned messages leaves behind (./rollups.ts reads them): taken from the
// page's events by the reports' own rules (core/tracking/daily-stats.ts countDays,
// core/tracking/batch-counts.ts countBatchesOf, core/campaigns/report.ts reportPartsOf), then added
// to the account's day and batch documents. A page holds every event of its messages, so a message
// counts once. Adding is guarded by the page's id: a pruner that stopped after adding and is run
// again adds nothing twice (one pruner per account at a time: ./prune-account.ts holds it).
import type { RolledTypeCounts, RollupDoc, Store } from '../../adapters/store/store';
import { addTypeCounts, countBatchesOf, type BatchCountedEvent } from '../tracking/batch-counts';
import { countDays, DAILY_COUNTS, type DayCountedEvent } from '../tracking/daily-stats';
import { addLinks, LINKS_KEPT, reportPartsOf, type HourCounts, type LinkCounts, type ReportedEvent } from '../campaigns/report';
import { batchRollupId, dayRollupId, isCampaignBatch, isKeptBatch, storedType } from './rollups';

/** The event fields the counts read (a projection). */
export const COUNTED_FIELDS = { track_type: 1, timestamp: 1, sent_timestamp: 1, mail_id: 1, batch_id: 1, reason: 1, bounce_type: 1, url: 1 } as const;
export type CountedEvent = DayCountedEvent & BatchCountedEvent & ReportedEvent;

/** What a page adds: day counts, and kept batches' counts (a campaign's with its hours and links). */
export interface PageRollups {
  days: Array<{ day: string; counts: Record<string, number> }>;
  batches: Array<{ batchId: string; types: Record<string, RolledTypeCounts>; hours?: Record<string, HourCounts>; links?: LinkCounts[] }>;
}

export function rollupsOf(account: string, events: CountedEvent[]): PageRollups {
  const days = [...countDays(events)].map(([day, counts]) => ({ day, counts: { ...counts } }));
  const kept = events.filter((event) => isKeptBatch(account, event.batch_id));
  const batches = [...countBatchesOf(kept)].map(([batchId, counts]) => {
    const types = Object.fromEntries([...counts].map(([type, typeCounts]) => [storedType(type), typeCounts]));
    if (!isCampaignBatch(account, batchId)) return { batchId, types };
    return { batchId, types, ...reportPartsOf(kept.filter((event) => event.batch_id === batchId)) };
  });
  return { days, batches };
}

/** Adds the page's counts to the account's documents, each once. */
export async function addRollups(store: Store, account: string, page: string, rollups: PageRollups): Promise<void> {
  for (const { day, counts } of rollups.days) {
    await merge(store, account, dayRollupId(account, day), { kind: 'day', key: day }, page, (doc) => ({
      counts: Object.fromEntries(DAILY_COUNTS.map((name) => [name, (doc?.counts?.[name] ?? 0) + (counts[name] ?? 0)])),
    }));
  }
  for (const batch of rollups.batches) {
    await merge(store, account, batchRollupId(account, batch.batchId), { kind: 'batch', key: batch.batchId }, page, (doc) => ({
      types: addTypes(doc?.types ?? {}, batch.types),
      ...(batch.hours ? { hours: addHours(doc?.hours ?? {}, batch.hours) } : {}),
      ...(batch.links ? { links: addLinks(doc?.links ?? [], batch.links).slice(0, LINKS_KEPT) } : {}),
    }));
  }
}

/** Reads the document, and writes it with the page's counts added, unless this page was added already. */
async function merge(
  store: Store, account: string, id: string, identity: Pick<RollupDoc, 'kind' | 'key'>, page: string,
  added: (doc: RollupDoc | null) => Partial<RollupDoc>,
): Promise<void> {
  const doc = await store.rollups.findOne({ _id: id, account });
  if (doc?.page === page) return;
  await store.rollups.replaceOne({ _id: id, account }, { _id: id, account, ...identity, ...added(doc), page }, { upsert: true });
}

function addTypes(stored: Record<string, RolledTypeCounts>, added: Record<string, RolledTypeCounts>): Record<string, RolledTypeCounts> {
  const result = { ...stored };
  for (const [type, counts] of Object.entries(added)) result[type] = addTypeCounts(`track.mail.${type}`, result[type], counts);
  return result;
}

function addHours(stored: Record<string, HourCounts>, added: Record<string, HourCounts>): Record<string, HourCounts> {
  const result: Record<string, HourCounts> = Object.fromEntries(Object.entries(stored).map(([hour, counts]) => [hour, { ...counts }]));
  for (const [hour, counts] of Object.entries(added)) {
    const into = (result[hour] ??= {});
    for (const [key, n] of Object.entries(counts) as Array<[keyof HourCounts, number]>) into[key] = (into[key] ?? 0) + n;
  }
  return result;
}
