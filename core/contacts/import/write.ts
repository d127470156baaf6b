// Writing one batch of imported rows: every row is first tried as a new contact (one insertMany,
// unordered, with ids the caller reserved for the batch: one $inc of the account's counter); the unique index
// on {account, email} refuses the emails already taken, by earlier contacts or by a create that
// happened a moment ago through the API. Those are left alone (IGNORE) or updated in bulk
// (OVERWRITE). Nothing is read before writing: on the embedded store a query on a batch of
// emails would scan every contact, while an insert and an update by {account, email} use the index.
import type { AnyBulkWriteOperation } from 'mongodb';
import { interestRenewals, newContact } from '../changes';
import type { ImportMode } from './options';
import type { ImportValues } from './rows';
import { reserveIds } from '../../../adapters/store/counters';
import { isDuplicateKey, type ContactDoc, type Store } from '../../../adapters/store/store';
import { refusedStatements } from '../../../adapters/store/bulk-writes';

/** A row ready to write: valid, its email seen once in the file, its interests resolved to ids. */
export interface ImportRow { line: number; email: string; values: ImportValues; customFields: Record<string, string>; interests: number[] }

export interface BatchTarget {
  account: string;
  list: number | null;
  /** Interests every imported contact gets. */
  interests: number[];
  mode: ImportMode;
  /**
   * On a retried attempt, when the earlier attempts began: a taken email whose contact was
   * imported since then (source IMPORTED_CSV) was created by this import, and counts as created.
   */
  earlierAttemptsSince?: Date;
}

export interface BatchCounts { created: number; updated: number; ignored: number }

/** Ids for a batch of up to `count` new contacts: the first of a block no one else gets (one $inc of the account's counter). */
export function reserveContactIds(store: Store, account: string, count: number): Promise<number> {
  return count > 0 ? reserveIds(store, account, 'contacts', count) : Promise.resolve(0);
}

/** Writes the rows; `first` starts a block of at least rows.length reserved ids (reserveContactIds). */
export async function writeBatch(store: Store, target: BatchTarget, rows: ImportRow[], first: number): Promise<BatchCounts> {
  if (rows.length === 0) return { created: 0, updated: 0, ignored: 0 };
  const now = new Date();
  const docs = rows.map((row, i) => newContact(target.account, first + i, {
    email: row.email,
    ...row.values,
    customFields: Object.entries(row.customFields).map(([id, value]) => ({ id: Number(id), value })),
    interests: [...target.interests, ...row.interests],
    lists: target.list === null ? [] : [target.list],
  }, 'IMPORTED_CSV', now));
  let taken = (await insertNew(store, docs)).map((i) => rows[i]);
  const counts = { created: rows.length - taken.length, updated: 0, ignored: 0 };
  if (taken.length > 0 && target.earlierAttemptsSince) {
    const ours = await importedSince(store, target.account, taken, target.earlierAttemptsSince);
    counts.created += ours.size;
    taken = taken.filter((row) => !ours.has(row.email));
  }
  if (taken.length === 0) return counts;
  if (target.mode === 'IGNORE') {
    counts.ignored += taken.length;
  } else {
    const matched = await overwrite(store, target, taken, now);
    counts.updated += matched;
    counts.ignored += taken.length - matched; // deleted between the insert and the update
  }
  return counts;
}

/** Inserts what it can; the indexes of the documents whose email was taken. */
async function insertNew(store: Store, docs: ContactDoc[]): Promise<number[]> {
  try {
    await store.contacts.insertMany(docs, { ordered: false });
    return [];
  } catch (error) {
    const refused = refusedStatements(error);
    if (![...refused.values()].every(isDuplicateKey)) throw error;
    return [...refused.keys()];
  }
}

/** Emails of `rows` whose contact this import created in an earlier attempt. */
async function importedSince(store: Store, account: string, rows: ImportRow[], since: Date): Promise<Set<string>> {
  const found = await Promise.all(rows.map((row) => store.contacts.findOne(
    { account, email: row.email }, { projection: { email: 1, source: 1, created: 1 } },
  )));
  return new Set(found.filter((c) => c && c.source === 'IMPORTED_CSV' && c.created >= since).map((c) => c!.email));
}

/**
 * The row's values on the existing contacts (cells left empty change nothing; the state never
 * changes, so an unsubscribed or bounced contact stays so), the list added; the row's interests
 * renewed (taken off, then added with today's date). Answers how many contacts were there.
 */
async function overwrite(store: Store, target: BatchTarget, rows: ImportRow[], now: Date): Promise<number> {
  const { account } = target;
  const updates: Array<AnyBulkWriteOperation<ContactDoc>> = rows.map((row) => {
    const $set: Record<string, unknown> = { ...row.values, lastModified: now };
    for (const [id, value] of Object.entries(row.customFields)) $set[`customFields.${id}`] = value;
    return { updateOne: { filter: { account, email: row.email }, update: { $set, ...(target.list !== null ? { $addToSet: { lists: target.list } } : {}) } } };
  });
  const { matchedCount } = await store.contacts.bulkWrite(updates, { ordered: false });
  const renewals = interestRenewals(account, rows.map((row) => ({ email: row.email, interests: [...target.interests, ...row.interests] })), now);
  if (renewals.length > 0) await store.contacts.bulkWrite(renewals, { ordered: true });
  return matchedCount;
}
