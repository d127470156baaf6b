// Contacts as CSV: the columns of an export, and the export's selection. The header names are
// the ones an import recognises, so an export imports back as it is.
import { stringify } from 'csv-stringify/sync';
import type { Filter } from 'mongodb';
import type { ContactDoc, ContactState, FieldDoc, Store } from '../../adapters/store/store';
import { deleteFile, saveFile } from '../../adapters/store/files';
import { contactIdPages } from './id-pages';

export interface ExportSelection { listId: number | null; state: ContactState | null; interestId: number | null }

/** What the contacts a selection names have (nothing asked of all the account's when every part is null). */
export function selectionFilter(selection: ExportSelection): Filter<ContactDoc> {
  return {
    ...(selection.listId !== null ? { lists: selection.listId } : {}),
    ...(selection.interestId !== null ? { 'interests.id': selection.interestId } : {}),
    ...(selection.state !== null ? { state: selection.state } : {}),
  };
}

const BUILT_IN = ['id', 'email', 'firstName', 'lastName', 'gender', 'language', 'preferredFormat', 'state', 'source', 'quality', 'created', 'lastModified', 'lists', 'interests'] as const;

/** The header row: the built-in fields, then each custom field by its name. */
export function exportHeader(fields: FieldDoc[]): string {
  return stringify([[...BUILT_IN, ...fields.map((f) => f.name)]]);
}

/** Rows of contacts; lists and interests as their names, joined by `|`. */
export function exportRows(contacts: ContactDoc[], fields: FieldDoc[], listNames: Map<number, string>, interestNames: Map<number, string>): string {
  return stringify(contacts.map((c) => [
    c.id, c.email, c.firstName, c.lastName, c.gender, c.language, c.preferredFormat, c.state, c.source, c.quality,
    c.created.toISOString(), c.lastModified.toISOString(),
    c.lists.flatMap((id) => listNames.get(id) ?? []).join('|'),
    c.interests.flatMap((i) => interestNames.get(i.id) ?? []).join('|'),
    ...fields.map((f) => c.customFields[String(f.id)] ?? ''),
  ]));
}

/**
 * `<name>-YYYY-MM-DD-HH-mm-ss-<task id>.csv`: the original's `<name>-YYYY-MM-DD-HH-mm-ss.csv`,
 * plus the task's id, since two exports can start in the same second.
 */
export function exportFileName(name: string, at: Date, taskId: number): string {
  const stamp = at.toISOString().slice(0, 19).replace(/[T:]/g, '-');
  return `${name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 60) || 'contacts'}-${stamp}-${taskId}.csv`;
}

/** Names of the account's lists and interests, for the rows. */
export async function namesOf(store: Store, account: string) {
  const [lists, interests, fields] = await Promise.all([
    store.lists.find({ account }).project<{ id: number; name: string }>({ id: 1, name: 1 }).toArray(),
    store.interests.find({ account }).project<{ id: number; name: string }>({ id: 1, name: 1 }).toArray(),
    store.fields.find({ account }).sort({ id: 1 }).toArray(),
  ]);
  return { listNames: new Map(lists.map((l) => [l.id, l.name])), interestNames: new Map(interests.map((i) => [i.id, i.name])), fields };
}

/**
 * Writes the selected contacts as the account's CSV file `fileName` in the store, in id order,
 * page by page (./id-pages.ts), reporting progress per page as the ids walked of the account's.
 * A retry writes the file again from the start. Returns the count.
 */
export async function writeExport(
  store: Store, account: string, fileName: string, selection: ExportSelection,
  report: (done: number, total: number) => Promise<void>,
): Promise<number> {
  const filter = selectionFilter(selection);
  const names = await namesOf(store, account);
  await deleteFile(store, account, fileName); // what an earlier attempt left
  let exported = 0;
  async function* csv() {
    yield exportHeader(names.fields);
    for await (const page of contactIdPages(store, account, filter)) {
      if (page.contacts.length > 0) yield exportRows(page.contacts, names.fields, names.listNames, names.interestNames);
      exported += page.contacts.length;
      await report(page.walked, page.ids);
    }
  }
  await saveFile(store, account, fileName, 'export', 'text/csv; charset=utf-8', csv());
  return exported;
}
