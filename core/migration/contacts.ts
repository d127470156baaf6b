// The source's contacts, through its documented API: one contact export (`POST contacts/export`,
// its task polled, the CSV downloaded) for each contact's values, state, source, custom fields (by
// the field's name) and lists and interests (by name). A list or interest whose name is not unique
// at the source (or holds the export's `|` separator) has its members read from the listing
// filtered by it (`filter[list]`, `filter[interest]`: by id, so same-named lists cannot mix). Contacts are
// matched by email: a new one is created with the source's state; an existing one gets the values,
// the lists and interests added, and the source's state only when it stops mail (nobody who left
// is mailed again, and no one here who left is made ACTIVE). Written 1,000 at a time; a contact
// whose digest did not change since the last run is left alone. A re-run first asks whether
// anything changed at all (unchangedSinceLastRead): when not, it reads no contact.
import { parse } from 'csv-parse/sync';
import type { AnyBulkWriteOperation } from 'mongodb';
import { SourceApiError } from '../../adapters/http/account-api-client';
import { reserveIds } from '../../adapters/store/counters';
import type { ContactDoc, ContactState, SourceMark } from '../../adapters/store/store';
import { interestRenewals, newContact } from '../contacts/changes';
import { isEmailAddress } from '../shared/email-address';
import type { StepContext } from './definitions';
import { digestOf } from './mapping';
import { emptyKind, skip, type KindReport } from './report';

const BATCH = 1000;
const EXPORT_POLL_MS = 500;
/**
 * A write stamps lastModified before it lands: one stamped shortly before the last full read began
 * may have landed after the read passed its contact. Changes this close to that read make a re-run read in full.
 */
const WRITES_LANDING_MS = 10_000;
const STATES: ReadonlySet<string> = new Set<ContactState>(['ACTIVE', 'UNSUBSCRIBED', 'BOUNCED', 'COMPLAINED']);
const GENDERS = new Set(['', 'M', 'F']);
const LANGUAGES = new Set(['', 'de', 'en', 'es', 'fr', 'it', 'pt']);
/** Columns of the original's export that are not custom fields. */
const BUILT_IN_COLUMNS = new Set(['id', 'email', 'firstName', 'lastName', 'gender', 'language', 'preferredFormat', 'state', 'source', 'quality', 'created', 'lastModified', 'lists', 'interests']);

/** One contact as the migration writes it. */
interface Incoming {
  sourceId: string;
  email: string;
  values: Pick<ContactDoc, 'firstName' | 'lastName' | 'gender' | 'language' | 'preferredFormat'>;
  state: ContactState;
  source: string;
  customFields: Record<string, string>;
  lists: number[];
  interests: number[];
}

export async function migrateContacts(context: StepContext): Promise<KindReport> {
  const report = emptyKind();
  const mark = await context.map.mark('contacts');
  if (mark && await unchangedSinceLastRead(context, mark)) return { ...report, unchanged: mark.total };
  const [fieldIds, lists, interests] = await Promise.all([customFieldTargets(context), membershipOf(context, 'lists', 'list'), membershipOf(context, 'interests', 'interest')]);
  const { rows, readStarted } = await exportedRows(context);
  const seen = new Set<string>();
  let batch: Incoming[] = [];
  for (const row of rows) {
    report.read += 1;
    const email = String(row.email ?? '').trim().toLowerCase();
    if (!isEmailAddress(email)) {
      skip(report, 'invalid email');
      continue;
    }
    if (seen.has(email)) {
      skip(report, 'email given twice at the source');
      continue;
    }
    seen.add(email);
    const state = String(row.state ?? 'ACTIVE').toUpperCase();
    if (!STATES.has(state)) {
      skip(report, `unknown contact state ${state.slice(0, 20)}`);
      continue;
    }
    const customFields: Record<string, string> = {};
    for (const [column, value] of Object.entries(row)) {
      if (BUILT_IN_COLUMNS.has(column) || value === '') continue;
      const target = fieldIds.get(column);
      if (target === undefined) skip(report, `value of field "${column.slice(0, 40)}", which was not migrated`);
      else if (target === null) skip(report, `value of field "${column.slice(0, 40)}", a name two fields share`);
      else customFields[String(target)] = value;
    }
    batch.push({
      sourceId: String(row.id ?? email),
      email,
      values: {
        firstName: String(row.firstName ?? ''),
        lastName: String(row.lastName ?? ''),
        gender: (GENDERS.has(row.gender) ? row.gender : '') as ContactDoc['gender'],
        language: (LANGUAGES.has(row.language) ? row.language : '') as ContactDoc['language'],
        preferredFormat: String(row.preferredFormat).toUpperCase().startsWith('T') ? 'TEXT' : 'HTML',
      },
      state: state as ContactState,
      source: String(row.source || 'MANUAL'),
      customFields,
      lists: lists.of(email, row.lists),
      interests: interests.of(email, row.interests),
    });
    if (batch.length === BATCH) {
      await writeContacts(context, batch, report);
      batch = [];
      await context.progress(report.read, rows.length);
    }
  }
  await writeContacts(context, batch, report);
  await context.progress(report.read, rows.length);
  if (readStarted) await context.map.setMark('contacts', { readStarted, total: rows.length });
  return report;
}

/**
 * Whether the source shows no contact modified since the last full read began (by its own clock,
 * so no clock skew counts) and as many contacts: its listing's most recently modified contact
 * (`sortby=lastModified`, which Herald serves) is older than that read. A source that cannot sort
 * so (the original documents email and quality only), or does not say it did, is read in full.
 */
async function unchangedSinceLastRead(context: StepContext, mark: SourceMark): Promise<boolean> {
  let newest;
  try {
    newest = await context.client.get<Array<{ id: number }>>('contacts', { sortby: 'lastModified', sortdir: 'desc', limit: 1 });
  } catch (error) {
    if (error instanceof SourceApiError && error.failure === 'refused') return false;
    throw error;
  }
  const by = newest.sort?.sortby ?? newest.sort?.sortBy;
  const dir = newest.sort?.sortdir ?? newest.sort?.sortDir;
  if (String(by).toLowerCase() !== 'lastmodified' || String(dir).toLowerCase() !== 'desc') return false;
  if (newest.paging?.total !== mark.total) return false;
  const contact = newest.data?.[0];
  if (!contact) return mark.total === 0;
  const modified = Date.parse(String((await context.client.get<{ lastModified?: string }>(`contacts/${contact.id}`)).data?.lastModified));
  return modified < Date.parse(mark.readStarted) - WRITES_LANDING_MS;
}

/** The source's custom field names → Herald's field ids (null: a name two source fields share). */
async function customFieldTargets(context: StepContext): Promise<Map<string, number | null>> {
  const byName = new Map<string, number | null>();
  for await (const page of context.client.pages<{ id: number; name: string }>('fields', { pageSize: 1000, sortby: 'id' })) {
    const mapped = await context.map.lookup('fields', page.items.map((field) => String(field.id)));
    for (const field of page.items) {
      const target = mapped.get(String(field.id))?.targetId;
      if (typeof target !== 'number' || target < 10) continue;
      byName.set(field.name, byName.has(field.name) ? null : target);
    }
  }
  return byName;
}

/** How a contact's lists (or interests) are found: the export's names, or the filtered listing's members for names that are not unique. */
interface Membership { of(email: string, names: string | undefined): number[] }

/**
 * The source's lists (or interests) → Herald's ids: by name where the name is unique at the source,
 * else by the members the listing filtered by the list's id shows.
 */
async function membershipOf(context: StepContext, kind: 'lists' | 'interests', filter: 'list' | 'interest'): Promise<Membership> {
  const named = new Map<string, number[]>();
  const sourceIds = new Map<string, string[]>();
  for await (const page of context.client.pages<{ id: number; name: string }>(kind, { pageSize: 1000, sortby: 'created' })) {
    const mapped = await context.map.lookup(kind, page.items.map((element) => String(element.id)));
    for (const element of page.items) {
      const target = mapped.get(String(element.id))?.targetId;
      if (typeof target !== 'number') continue;
      named.set(element.name, [...(named.get(element.name) ?? []), target]);
      sourceIds.set(element.name, [...(sourceIds.get(element.name) ?? []), String(element.id)]);
    }
  }
  const byName = new Map<string, number>();
  const byMember = new Map<string, Set<number>>();
  for (const [name, targets] of named) {
    if (targets.length === 1 && !name.includes('|')) {
      byName.set(name, targets[0]);
      continue;
    }
    for (const [k, sourceId] of sourceIds.get(name)!.entries()) {
      for await (const page of context.client.pages<{ email: string }>('contacts', { pageSize: 1000, sortby: 'email', overlap: 50, query: { [`filter[${filter}]`]: sourceId } })) {
        for (const contact of page.items) {
          const email = String(contact.email).trim().toLowerCase();
          byMember.set(email, (byMember.get(email) ?? new Set()).add(targets[k]));
        }
      }
    }
  }
  return {
    of(email, names) {
      const ids = new Set(byMember.get(email));
      for (const name of (names ?? '').split('|')) {
        const id = byName.get(name);
        if (id !== undefined) ids.add(id);
      }
      return [...ids].sort((a, b) => a - b);
    },
  };
}

/** The source's export of every contact, as rows by column name, and when the export began by the source's clock (its task's `created`, if given). */
async function exportedRows(context: StepContext): Promise<{ rows: Array<Record<string, string>>; readStarted?: string }> {
  const started = await context.client.post<unknown>('contacts/export', {});
  const taskId = started.task?.id;
  if (typeof taskId !== 'number') throw new Error('The source started no export task for contacts/export');
  for (;;) {
    const task = (await context.client.get<{ state?: string; created?: string; result?: { fileName?: string }; message?: string }>(`tasks/${taskId}`)).data;
    if (task?.state === 'FINISHED') {
      const fileName = task.result?.fileName;
      if (!fileName) throw new Error(`The source's export task ${taskId} finished without a file`);
      const csv = await context.client.download(`exports/${encodeURIComponent(fileName)}`);
      const rows = parse(csv, { columns: true, bom: true, skip_empty_lines: true, relax_column_count: true }) as Array<Record<string, string>>;
      return { rows, readStarted: Number.isFinite(Date.parse(String(task.created))) ? String(task.created) : undefined };
    }
    if (task?.state === 'FAILED' || task?.state === 'CANCELLED') throw new Error(`The source's contact export ended ${task.state}: ${task.message ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, EXPORT_POLL_MS));
  }
}

/** Writes a batch: new contacts inserted, existing ones (by email) brought up to date; the mapping recorded. */
async function writeContacts(context: StepContext, batch: Incoming[], report: KindReport): Promise<void> {
  const { store, account } = context;
  const mapped = await context.map.lookup('contacts', batch.map((incoming) => incoming.sourceId));
  const changed = batch.filter((incoming) => {
    const same = mapped.get(incoming.sourceId)?.digest === digestOf(incoming);
    if (same) report.unchanged += 1;
    return !same;
  });
  if (changed.length === 0) return;
  const existing = new Map((await store.contacts.find({ account, email: { $in: changed.map((c) => c.email) } })
    .project<Pick<ContactDoc, 'id' | 'email' | 'state'>>({ _id: 0, id: 1, email: 1, state: 1 }).toArray()).map((c) => [c.email, c]));
  const fresh = changed.filter((c) => !existing.has(c.email));
  const now = new Date();
  const targetIds = new Map<string, number>([...existing].map(([email, contact]) => [email, contact.id]));
  if (fresh.length > 0) {
    const first = await reserveIds(store, account, 'contacts', fresh.length);
    const docs = fresh.map((c, i) => {
      targetIds.set(c.email, first + i);
      return {
        ...newContact(account, first + i, { email: c.email, ...c.values, lists: c.lists, interests: c.interests, customFields: Object.entries(c.customFields).map(([id, value]) => ({ id: Number(id), value })) }, c.source, now),
        state: c.state,
        inactivated: c.state === 'ACTIVE' ? null : now,
      };
    });
    await store.contacts.insertMany(docs, { ordered: false });
    report.created += fresh.length;
  }
  const updates = changed.filter((c) => existing.has(c.email)).map((c): AnyBulkWriteOperation<ContactDoc> => {
    const $set: Record<string, unknown> = { ...c.values, lastModified: now };
    for (const [id, value] of Object.entries(c.customFields)) $set[`customFields.${id}`] = value;
    // A state that stops mail is taken; ACTIVE never replaces one (nobody who left is mailed again).
    if (c.state !== 'ACTIVE' && existing.get(c.email)!.state === 'ACTIVE') Object.assign($set, { state: c.state, inactivated: now });
    return { updateOne: { filter: { account, email: c.email }, update: { $set, $addToSet: { lists: { $each: c.lists } } } } };
  });
  if (updates.length > 0) {
    await store.contacts.bulkWrite(updates, { ordered: false });
    // The source's interests, dated today; the contact's others stay (as an import renews them).
    const renewals = interestRenewals(account, changed.filter((c) => existing.has(c.email)), now);
    if (renewals.length > 0) await store.contacts.bulkWrite(renewals, { ordered: true });
    report.updated += updates.length;
  }
  await context.map.put('contacts', changed.map((c) => ({ sourceId: c.sourceId, targetId: targetIds.get(c.email)!, digest: digestOf(c) })));
}
