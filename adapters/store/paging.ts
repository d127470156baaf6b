// What the account's numbered collections (users, lists, interests, contacts) share: a page of a
// listing, and the changes a modification really makes.
import type { Collection, Filter } from 'mongodb';

/** A listing request as the API parsed it (api/account/list-options.ts). */
export interface PageRequest {
  offset: number;
  limit: number;
  sortby: string;
  sortdir: 'asc' | 'desc';
  /** A condition on the name: `{ $regex, $options }`, used as it is. */
  q?: { $regex: string; $options: 'i' };
}

export interface Page<T> { items: T[]; total: number }

/**
 * One page of the documents matching `filter`, with the total, sorted (ties by id, so pages never
 * overlap). `page.q` applies to `searchField` (the name; the email for users and contacts).
 */
export async function findPage<T extends { account: string; id: number }>(
  collection: Collection<T>, filter: Filter<T>, page: PageRequest, searchField = 'name',
): Promise<Page<T>> {
  const query = { ...filter, ...(page.q ? { [searchField]: page.q } : {}) } as Filter<T>;
  const [items, total] = await Promise.all([
    collection.find(query).sort({ [page.sortby]: page.sortdir === 'asc' ? 1 : -1, id: 1 }).skip(page.offset).limit(page.limit).toArray(),
    collection.countDocuments(query),
  ]);
  return { items: items as T[], total };
}

/** The values of `input` that differ from `current`: what a PUT changes, and all its answer shows. */
export function changedValues<T extends object>(current: T, input: Partial<T>): Partial<T> {
  const changes: Partial<T> = {};
  for (const key of Object.keys(input) as Array<keyof T>) {
    if (input[key] !== undefined && JSON.stringify(input[key]) !== JSON.stringify(current[key])) changes[key] = input[key];
  }
  return changes;
}
