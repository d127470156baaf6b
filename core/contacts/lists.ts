// Lists of an account. Membership lives on the contact (ContactDoc.lists), so a list's counts
// are counted from the contacts, and deleting a list takes it off every contact.
import { perStore } from '../../adapters/store/per-store';
import { changedValues, findPage, type Page, type PageRequest } from '../../adapters/store/paging';
import { nextId } from '../../adapters/store/counters';
import type { ListDoc, Store } from '../../adapters/store/store';
import { countCache } from '../shared/count-cache';

export interface ListInput { name: string; description?: string; tags?: string[] }

export interface ContactCounts { activeContacts: number; totalContacts: number }

/** Names are kept without surrounding spaces, tags once each. */
function normalise<T extends Partial<ListInput>>(input: T): T {
  return {
    ...input,
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.tags !== undefined ? { tags: [...new Set(input.tags)] } : {}),
  };
}

/** Creates a list; `reservedId`: an id taken from the counter beforehand (a migration records it before creating). */
export async function createList(store: Store, account: string, input: ListInput, reservedId?: number): Promise<ListDoc> {
  const { name, description = '', tags = [] } = normalise(input);
  const id = reservedId ?? await nextId(store, account, 'lists');
  const now = new Date();
  const list: ListDoc = { _id: `${account}:${id}`, account, id, name, description, tags, created: now, lastModified: now, lastMailed: null };
  await store.lists.insertOne(list);
  return list;
}

export function findList(store: Store, account: string, id: number): Promise<ListDoc | null> {
  return store.lists.findOne({ _id: `${account}:${id}`, account });
}

export function findLists(store: Store, account: string, page: PageRequest): Promise<Page<ListDoc>> {
  return findPage(store.lists, { account }, page);
}

/** Applies what differs from the list; returns only that. */
export async function updateList(store: Store, list: ListDoc, input: Partial<ListInput>): Promise<Partial<ListInput>> {
  const changes = changedValues<ListInput>(list, normalise(input));
  if (Object.keys(changes).length > 0) {
    await store.lists.updateOne({ _id: list._id, account: list.account }, { $set: { ...changes, lastModified: new Date() } });
  }
  return changes;
}

/**
 * Deletes the list, then takes it off every contact. Ids are never given twice (core/counters),
 * so a contact a crash left between the two steps points at no list rather than at a new one.
 */
export async function deleteList(store: Store, account: string, id: number): Promise<boolean> {
  const { deletedCount } = await store.lists.deleteOne({ _id: `${account}:${id}`, account });
  if (deletedCount === 0) return false;
  await store.contacts.updateMany({ account, lists: id }, { $pull: { lists: id } });
  return true;
}

/**
 * Accounts with fewer list memberships than this get their lists' counts counted on every request
 * (tens of milliseconds); larger ones, as counted at most COUNT_TTL_MS ago (core/shared/count-cache.ts).
 */
export const EXACT_LIST_COUNTS_BELOW = 5000;

interface AccountListCounts { byList: Map<number, ContactCounts>; memberships: number }

/** Active and total contacts of each of the account's lists, in one pass over its contacts. */
async function countAccountLists(store: Store, account: string): Promise<AccountListCounts> {
  const rows = await store.contacts.aggregate<{ _id: number; total: number; active: number }>([
    { $match: { account } },
    { $unwind: '$lists' },
    { $group: { _id: '$lists', total: { $sum: 1 }, active: { $sum: { $cond: [{ $eq: ['$state', 'ACTIVE'] }, 1, 0] } } } },
  ]).toArray();
  const byList = new Map(rows.map((row) => [row._id, { activeContacts: row.active, totalContacts: row.total }]));
  return { byList, memberships: rows.reduce((sum, row) => sum + row.total, 0) };
}

const listCounts = perStore((store) => countCache((account) => countAccountLists(store, account)));

/** Active and total contacts of each list: exact for a small account, up to COUNT_TTL_MS old for a large one. */
export async function contactCounts(store: Store, account: string, ids: number[]): Promise<Map<number, ContactCounts>> {
  const cache = listCounts(store);
  const known = cache.peek(account, { allowStale: true });
  let counts: AccountListCounts;
  if (known && known.memberships >= EXACT_LIST_COUNTS_BELOW) {
    counts = (await cache.fetch(account))!;
  } else {
    counts = await countAccountLists(store, account);
    cache.set(account, counts);
  }
  return new Map(ids.map((id) => [id, counts.byList.get(id) ?? { activeContacts: 0, totalContacts: 0 }]));
}
