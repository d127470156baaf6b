// The migration's id mapping: one record per source element brought over (its kind, the source's
// id, Herald's id, and a digest of what was written). A target id is recorded before its element
// is created, so a run killed in between creates it under that id next time instead of a second
// one; a re-run finds each element it wrote and updates it, or leaves it when unchanged.
import { createHash } from 'node:crypto';
import { stringify } from 'csv-stringify/sync';
import type { MigrationMapDoc, SourceMark, Store } from '../../adapters/store/store';

/** Records asked for at once: the store looks up to 20,000 keys in its index before it scans. */
const LOOKUP_CHUNK = 5000;

export class MigrationMap {
  constructor(private readonly store: Store, private readonly account: string, readonly source: string) {}

  /** The migration's own record (`migrations`): its steps done, reports and marks. */
  get recordId(): string {
    return `${this.account}|${this.source}`;
  }

  private idOf(kind: string, sourceId: string): string {
    return `${this.account}|${this.source}|${kind}|${sourceId}`;
  }

  /**
   * The records of these source elements of a kind, by the source's id: looked up by _id (the
   * embedded store answers that from its index; a query by kind would walk every record, the
   * contacts' 100,000 among them).
   */
  async lookup(kind: string, sourceIds: Iterable<string>): Promise<Map<string, MigrationMapDoc>> {
    const ids = [...new Set(sourceIds)];
    const found = new Map<string, MigrationMapDoc>();
    for (let at = 0; at < ids.length; at += LOOKUP_CHUNK) {
      const docs = await this.store.migrationMaps.find({ _id: { $in: ids.slice(at, at + LOOKUP_CHUNK).map((id) => this.idOf(kind, id)) }, account: this.account }).toArray();
      for (const doc of docs) found.set(doc.sourceId, doc);
    }
    return found;
  }

  /** Records (or re-records) where source elements went. */
  async put(kind: string, entries: Array<{ sourceId: string; targetId: number | string; digest?: string }>): Promise<void> {
    if (entries.length === 0) return;
    await this.store.migrationMaps.bulkWrite(entries.map(({ sourceId, targetId, digest }) => {
      const doc: MigrationMapDoc = { _id: this.idOf(kind, sourceId), account: this.account, source: this.source, kind, sourceId, targetId, ...(digest ? { digest } : {}) };
      return { replaceOne: { filter: { _id: doc._id, account: this.account }, replacement: doc, upsert: true } };
    }), { ordered: false });
  }

  /** What the source looked like at the last full read of a kind, if one finished. */
  async mark(kind: string): Promise<SourceMark | undefined> {
    return (await this.store.migrations.findOne({ _id: this.recordId, account: this.account }, { projection: { marks: 1 } }))?.marks?.[kind];
  }

  /** Records a finished full read of a kind (the migration's record exists: run.ts writes it first). */
  async setMark(kind: string, mark: SourceMark): Promise<void> {
    await this.store.migrations.updateOne({ _id: this.recordId, account: this.account }, { $set: { [`marks.${kind}`]: mark } });
  }

  /**
   * Whether a migration from another source has written into the account, and whether one from
   * this source has (the target check): read from the migrations' own records, one per source,
   * written before their first element, so the check never walks the mapping.
   */
  async startedFrom(): Promise<{ thisSource: boolean; otherSources: boolean }> {
    const [own, other] = await Promise.all([
      this.store.migrations.findOne({ _id: this.recordId, account: this.account }, { projection: { _id: 1 } }),
      this.store.migrations.findOne({ account: this.account, source: { $ne: this.source } }, { projection: { _id: 1 } }),
    ]);
    return { thisSource: own !== null, otherSources: other !== null };
  }
}

/** A digest of what a migration wrote for an element: equal digests, nothing to update. */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 16);
}

/** The account's id mapping as CSV rows, a batch at a time: `source,kind,source_id,herald_id` (optionally of one source). */
export async function* mappingCsv(store: Store, account: string, source?: string): AsyncGenerator<string> {
  yield stringify([['source', 'kind', 'source_id', 'herald_id']]);
  let batch: string[][] = [];
  for await (const doc of store.migrationMaps.find({ account, ...(source ? { source } : {}) }).sort({ _id: 1 })) {
    batch.push([doc.source, doc.kind, doc.sourceId, String(doc.targetId)]);
    if (batch.length === 1000) {
      yield stringify(batch);
      batch = [];
    }
  }
  if (batch.length > 0) yield stringify(batch);
}

/** How one element of a kind is written here: its id taken beforehand, looked up, created under it, brought up to date. */
export interface TargetOf<T> {
  reserveId(): Promise<number>;
  find(id: number): Promise<T | null>;
  create(id: number): Promise<unknown>;
  /** Brings the existing element up to date; a string: why it is left as it is. */
  update(existing: T, id: number): Promise<void | string>;
}

/**
 * Brings one source element over: when the mapping has it and it is here, updated (or left alone
 * when its digest did not change); else created, under an id recorded before the create, so a run
 * killed in between creates it under that id next time instead of a second one. Herald refusing it
 * (a tag taken, an MJML error: an AppError) is the caller's to count. `mapped` is kept current.
 */
export async function bringOver<T>(
  map: MigrationMap, mapped: Map<string, MigrationMapDoc>, kind: string, sourceId: string, digest: string, target: TargetOf<T>,
): Promise<'created' | 'updated' | 'unchanged' | { left: string }> {
  const before = mapped.get(sourceId);
  const known = typeof before?.targetId === 'number' ? before.targetId : undefined;
  const existing = known === undefined ? null : await target.find(known);
  const record = async (id: number, withDigest?: string) => {
    await map.put(kind, [{ sourceId, targetId: id, ...(withDigest ? { digest: withDigest } : {}) }]);
    mapped.set(sourceId, { _id: '', account: '', source: map.source, kind, sourceId, targetId: id, ...(withDigest ? { digest: withDigest } : {}) });
  };
  if (existing !== null && known !== undefined) {
    if (before?.digest === digest) return 'unchanged';
    const left = await target.update(existing, known);
    if (typeof left === 'string') return { left };
    await record(known, digest);
    return 'updated';
  }
  const id = known ?? await target.reserveId();
  if (known === undefined) await record(id);
  await target.create(id);
  await record(id, digest);
  return 'created';
}
