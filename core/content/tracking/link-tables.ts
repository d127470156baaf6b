// Link tables (./token.ts): a request's click links that every one of its messages carries alike,
// stored once (`linkTables`, one document per request) so a click token names an entry by its
// link_id instead of carrying it. The sender saves the table before any message that refers to
// it; the click endpoint reads it. Saving is idempotent: a retried or re-planned page saves the
// same table, which is already there; a different one for the same request is refused (a
// launched campaign's content never changes, so that would be a bug, not a retry).
//
// Read tables are kept per store connection, at most MAX_KEPT, the least recently used dropped
// first: a campaign's clicks come in bursts, and every click of it reads the same table. A table
// that is not there (or a failed read) is not kept: the next click reads again.
import { isDeepStrictEqual } from 'node:util';
import { perStore } from '../../../adapters/store/per-store';
import { isDuplicateKey, type Store } from '../../../adapters/store/store';
import { errors } from '../../shared/errors';
import { linkFields, readLinkFields, type TrackedLink } from './token';

const MAX_KEPT = 64;

type Table = ReadonlyMap<number, TrackedLink>;

/** Where a plan saves its request's link table (a LinkTables; a stand-in in unit tests). */
export interface LinkTableWriter {
  save(account: string, requestId: string, links: readonly TrackedLink[]): Promise<void>;
}

export class LinkTables implements LinkTableWriter {
  private readonly kept = new Map<string, Promise<Table | undefined>>();

  constructor(private readonly store: Store) {}

  /** Stores the table of `requestId` (nothing when it has no link); resolves once it is stored. */
  async save(account: string, requestId: string, links: readonly TrackedLink[]): Promise<void> {
    if (links.length === 0) return;
    const doc = { _id: tableId(account, requestId), account, requestId, links: links.map(linkFields), createdAt: new Date() };
    try {
      await this.store.linkTables.insertOne(doc);
      return;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const stored = await this.store.linkTables.findOne({ _id: doc._id, account }, { projection: { links: 1 } });
    if (!isDeepStrictEqual(stored?.links, doc.links)) throw errors.conflict(`Request ${requestId} already has another link table`);
  }

  /** Whether `requestId` has a stored table (its messages' links refer to it). */
  async has(account: string, requestId: string): Promise<boolean> {
    return (await this.table(account, requestId)) !== undefined;
  }

  /** Entry `linkId` of `requestId`'s table; undefined when the table or the entry is not there. */
  async link(account: string, requestId: string, linkId: number): Promise<TrackedLink | undefined> {
    return (await this.table(account, requestId))?.get(linkId);
  }

  private table(account: string, requestId: string): Promise<Table | undefined> {
    const key = tableId(account, requestId);
    const known = this.kept.get(key);
    if (known) {
      // Most recently used last: Map keeps insertion order.
      this.kept.delete(key);
      this.kept.set(key, known);
      return known;
    }
    const read = this.read(account, key);
    this.kept.set(key, read);
    if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
    const forget = () => {
      if (this.kept.get(key) === read) this.kept.delete(key);
    };
    read.then((table) => {
      if (!table) forget();
    }, forget);
    return read;
  }

  private async read(account: string, id: string): Promise<Table | undefined> {
    const doc = await this.store.linkTables.findOne({ _id: id, account });
    if (!doc || !Array.isArray(doc.links)) return undefined;
    // Stored by Herald, still checked: an entry that is not a link is no link (a 404), never half read.
    const links = doc.links.map(readLinkFields).filter((link): link is TrackedLink => link !== null);
    return new Map(links.map((link) => [link.linkId, link]));
  }
}

/** The process's link tables of a store: one, so every click of every request shares what it read. */
export const linkTablesOf = perStore((store) => new LinkTables(store));

function tableId(account: string, requestId: string): string {
  return `${account}:${requestId}`;
}
