// Templates of an account, as the original keeps them: HTML templates and folders, with ids that
// are paths (`/12` at the top, `/3/12` inside folder `/3`), plus Herald's MJML templates
// (compiled once, at save: core/content/mjml.ts). Each item has a number from a per-account
// counter; its id is its folder's path and that number, so moving it changes its id and nothing
// else. Folders sit at the top only (one level, as the original's two-part ids), so a folder never
// moves and its id never changes. A template may carry a subject, from and reply_to: defaults of a
// transactional send that names it (findTemplateForSend).
import type { Collection, Filter } from 'mongodb';
import type { Page, PageRequest } from '../../adapters/store/paging';
import { nextId } from '../../adapters/store/counters';
import { errors, fieldError, type FieldError } from '../shared/errors';
import { isDuplicateKey, type Store, type TemplateAddress, type TemplateDoc, type TemplateType } from '../../adapters/store/store';

import { compileMjml } from './mjml';

export const TEMPLATE_TYPES: readonly TemplateType[] = ['HTML', 'MJML', 'FOLDER'];

export type TemplateSummary = Omit<TemplateDoc, 'html' | 'mjml'>;

/** A body's limit, in UTF-8 bytes (the send API's limit on content.html). */
export const MAX_BODY_BYTES = 300 * 1024;
export const MAX_SUBJECT_LENGTH = 200;

export interface TemplateInput {
  name: string;
  /** HTML, MJML or FOLDER, in any letter case. */
  type: string;
  htmlRaw?: string;
  mjmlRaw?: string;
  /** The original's ways to give the HTML; refused (core/templates never fetches a URL). */
  htmlUrl?: unknown;
  htmlFile?: unknown;
  location?: string;
  subject?: string;
  from?: TemplateAddress;
  reply_to?: TemplateAddress;
}

/** A PUT: every key optional; `null` (or an empty subject) clears a default. */
export interface TemplateUpdate {
  name?: string;
  type?: string;
  location?: string;
  htmlRaw?: string;
  mjmlRaw?: string;
  htmlUrl?: unknown;
  htmlFile?: unknown;
  subject?: string | null;
  from?: TemplateAddress | null;
  reply_to?: TemplateAddress | null;
}

/** Which types a listing's `filter[type]` keeps, by its value (lower case); null keeps all. */
export const TYPE_FILTERS: Readonly<Record<string, readonly TemplateType[] | null>> = {
  all: null, templates: ['HTML', 'MJML'], html: ['HTML'], mjml: ['MJML'], folders: ['FOLDER'],
  // The original's drag-and-drop editor, which Herald does not have: there are none.
  eddie: [],
};

export interface TemplateFilters { types?: readonly TemplateType[] | null; location?: string }

const NUMBER = '[1-9][0-9]{0,8}';
/** A folder path as `location` takes it: `/` or `/<n>`. */
export const FOLDER_PATH = new RegExp(`^/(?:${NUMBER})?$`);
const TEMPLATE_PATH = new RegExp(`^/?(${NUMBER})(?:/(${NUMBER}))?$`);

/**
 * A template id as a client gives it (`/3/12`, `3/12`, `12`) in its one spelling (`/3/12`), or
 * null when it cannot be one. The leading slash is optional: in a URL it is the path's own.
 */
export function normaliseTemplateId(raw: string): string | null {
  const match = TEMPLATE_PATH.exec(raw);
  if (!match) return null;
  return match[2] ? `/${match[1]}/${match[2]}` : `/${match[1]}`;
}

const pathOf = (location: string, number: number) => `${location === '/' ? '' : location}/${number}`;

const WITHOUT_BODIES = { html: 0, mjml: 0 } as const;

/** The record the API shows (the original's, plus version for templates; thumbnail is always null). */
export function templateRecord(doc: TemplateSummary) {
  return {
    id: doc.id, type: doc.type, name: doc.name, location: doc.location,
    created: doc.created.toISOString(), lastModified: doc.lastModified.toISOString(), thumbnail: null,
    subject: doc.subject, from: doc.from, reply_to: doc.reply_to,
    ...(doc.type === 'FOLDER' ? {} : { version: doc.version ?? 1 }),
  };
}

/** htmlUrl and htmlFile of the original: refused by name, rather than silently dropped. */
function unsupported(input: { htmlUrl?: unknown; htmlFile?: unknown }, problems: Record<string, FieldError>) {
  if (input.htmlUrl !== undefined) {
    problems.htmlUrl = fieldError('invalid_value', 'Not supported: Herald does not fetch templates from URLs; send the HTML in htmlRaw');
  }
  if (input.htmlFile !== undefined) {
    problems.htmlFile = fieldError('invalid_value', 'Not supported: send the file\'s HTML in htmlRaw');
  }
}

function checkBodySize(field: 'htmlRaw' | 'mjmlRaw', value: string | undefined, problems: Record<string, FieldError>) {
  if (value !== undefined && Buffer.byteLength(value, 'utf8') > MAX_BODY_BYTES) {
    problems[field] = fieldError('max_length_exceeded', `At most ${MAX_BODY_BYTES / 1024} KB (UTF-8)`);
  }
}

const address = (value: TemplateAddress): TemplateAddress =>
  ({ email: value.email.trim(), ...(value.name !== undefined && value.name.trim() !== '' ? { name: value.name.trim() } : {}) });

/** A folder of the account at `location`, or a field error; `/` always exists. */
async function checkFolder(collection: Collection<TemplateDoc>, account: string, location: string): Promise<FieldError | undefined> {
  if (location === '/') return undefined;
  const folder = await collection.findOne({ account, id: location, type: 'FOLDER' }, { projection: { _id: 1 } });
  return folder ? undefined : fieldError('invalid_value', `No folder ${location} in this account`);
}

const folderGone = (location: string) => errors.validation({ location: fieldError('invalid_value', `No folder ${location} in this account`) });

/**
 * Whether the folder still exists after an item was written into it. A folder delete checks that
 * the folder is empty and re-checks after deleting (deleteTemplate), and a write into a folder
 * checks after writing: whatever the order, an item never stays in a deleted folder.
 */
async function folderStillThere(collection: Collection<TemplateDoc>, account: string, location: string): Promise<boolean> {
  return location === '/' || (await collection.countDocuments({ account, id: location, type: 'FOLDER' })) > 0;
}

/** The next template number of the account (its id is its folder's path and this number). */
export function templateNumber(store: Store, account: string): Promise<number> {
  return nextId(store, account, 'templates');
}

/**
 * Creates a template or folder. Everything is checked, and MJML compiled, before the number is
 * taken, so a refused create takes none. `reservedNumber`: a number taken from the counter
 * beforehand (a migration records it before creating: `templateNumber`).
 */
export async function createTemplate(store: Store, account: string, input: TemplateInput, reservedNumber?: number): Promise<TemplateDoc> {
  const collection = store.templates;
  const type = input.type.toUpperCase() as TemplateType;
  const location = input.location ?? '/';
  const problems: Record<string, FieldError> = {};
  unsupported(input, problems);
  checkBodySize('htmlRaw', input.htmlRaw, problems);
  checkBodySize('mjmlRaw', input.mjmlRaw, problems);
  const only = (field: keyof TemplateInput, types: string) => {
    if (input[field] !== undefined) problems[field] ??= fieldError('invalid_value', `Only for ${types}`);
  };
  if (type === 'HTML') {
    if (input.htmlRaw === undefined && !problems.htmlUrl && !problems.htmlFile) problems.htmlRaw = fieldError('required', 'The HTML of the template is required');
    only('mjmlRaw', 'MJML templates');
  } else if (type === 'MJML') {
    if (input.mjmlRaw === undefined) problems.mjmlRaw = fieldError('required', 'The MJML source of the template is required');
    only('htmlRaw', 'HTML templates');
  } else {
    for (const field of ['htmlRaw', 'mjmlRaw', 'subject', 'from', 'reply_to'] as const) only(field, 'HTML and MJML templates, not folders');
    if (location !== '/') problems.location = fieldError('invalid_value', 'Folders are created at the top (location /): they do not nest');
  }
  const noFolder = problems.location ? undefined : await checkFolder(collection, account, location);
  if (noFolder) problems.location = noFolder;
  if (Object.keys(problems).length > 0) throw errors.validation(problems);

  const html = type === 'MJML' ? await compileMjml(input.mjmlRaw!) : input.htmlRaw;
  const number = reservedNumber ?? await templateNumber(store, account);
  const now = new Date();
  const doc: TemplateDoc = {
    _id: `${account}:${number}`, account, number, id: pathOf(location, number), location, type, name: input.name.trim(),
    subject: type === 'FOLDER' || !input.subject ? null : input.subject,
    from: input.from && type !== 'FOLDER' ? address(input.from) : null,
    reply_to: input.reply_to && type !== 'FOLDER' ? address(input.reply_to) : null,
    ...(type === 'FOLDER' ? {} : { html, version: 1 }),
    ...(type === 'MJML' ? { mjml: input.mjmlRaw } : {}),
    created: now, lastModified: now,
  };
  await collection.insertOne(doc);
  if (!(await folderStillThere(collection, account, location))) {
    await collection.deleteOne({ _id: doc._id, account });
    throw folderGone(location);
  }
  return doc;
}

/** A template or folder with its bodies, by its path id (normalised), or null. */
export async function findTemplate(store: Store, account: string, id: string): Promise<TemplateDoc | null> {
  return store.templates.findOne({ account, id });
}

/** A page of templates and folders, without bodies; sorted by name or created, ties by number. */
export async function findTemplates(store: Store, account: string, page: PageRequest, filters: TemplateFilters = {}): Promise<Page<TemplateSummary>> {
  const collection = store.templates;
  const query: Filter<TemplateDoc> = {
    account,
    ...(filters.types ? { type: { $in: [...filters.types] } } : {}),
    ...(filters.location !== undefined ? { location: filters.location } : {}),
    ...(page.q ? { name: page.q } : {}),
  };
  const direction = page.sortdir === 'asc' ? 1 : -1;
  const [items, total] = await Promise.all([
    collection.find(query, { projection: WITHOUT_BODIES }).sort({ [page.sortby]: direction, number: 1 }).skip(page.offset).limit(page.limit).toArray(),
    collection.countDocuments(query),
  ]);
  return { items: items as TemplateSummary[], total };
}

export interface TemplateUpdateResult {
  /** The item after the change (without bodies). */
  doc: TemplateSummary;
  /** What changed, as the API shows it (never the bodies: a new body shows as its version). */
  changes: Record<string, unknown>;
  /** The item moved to another folder, so its id changed. */
  moved: boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Applies what differs: name, location (a move: the id changes), the body (a new version; MJML
 * compiled again) and the send defaults. The type never changes; folders neither move nor have
 * bodies or defaults. Not found when the item moved or vanished meanwhile.
 */
export async function updateTemplate(store: Store, doc: TemplateDoc, input: TemplateUpdate): Promise<TemplateUpdateResult> {
  const collection = store.templates;
  const problems: Record<string, FieldError> = {};
  const folder = doc.type === 'FOLDER';
  unsupported(input, problems);
  checkBodySize('htmlRaw', input.htmlRaw, problems);
  checkBodySize('mjmlRaw', input.mjmlRaw, problems);
  if (input.type !== undefined && input.type.toUpperCase() !== doc.type) {
    problems.type = fieldError('invalid_value', `The type of a template cannot change (this one is ${doc.type})`);
  }
  const refuse = (field: keyof TemplateUpdate, message: string) => {
    if (input[field] !== undefined) problems[field] ??= fieldError('invalid_value', message);
  };
  if (doc.type !== 'HTML') refuse('htmlRaw', `Only for HTML templates (this one is ${doc.type})`);
  if (doc.type !== 'MJML') refuse('mjmlRaw', `Only for MJML templates (this one is ${doc.type})`);
  if (folder) for (const field of ['subject', 'from', 'reply_to'] as const) refuse(field, 'Only for HTML and MJML templates, not folders');
  const location = input.location ?? doc.location;
  if (location !== doc.location) {
    const refused = folder
      ? fieldError('invalid_value', 'Folders stay at the top (location /): they do not nest')
      : await checkFolder(collection, doc.account, location);
    if (refused) problems.location = refused;
  }
  if (Object.keys(problems).length > 0) throw errors.validation(problems);

  const set: Partial<TemplateDoc> = {};
  const changes: Record<string, unknown> = {};
  const change = <K extends 'name' | 'subject' | 'from' | 'reply_to'>(key: K, value: TemplateDoc[K] | undefined) => {
    if (value !== undefined && !same(value, doc[key])) { set[key] = value; changes[key] = value; }
  };
  change('name', input.name?.trim());
  change('subject', input.subject === undefined ? undefined : input.subject || null);
  change('from', input.from === undefined ? undefined : input.from && address(input.from));
  change('reply_to', input.reply_to === undefined ? undefined : input.reply_to && address(input.reply_to));
  let newBody = false;
  if (input.htmlRaw !== undefined && input.htmlRaw !== doc.html) { set.html = input.htmlRaw; newBody = true; }
  if (input.mjmlRaw !== undefined && input.mjmlRaw !== doc.mjml) {
    set.html = await compileMjml(input.mjmlRaw);
    set.mjml = input.mjmlRaw;
    newBody = true;
  }
  const moved = location !== doc.location;
  if (moved) { set.location = location; set.id = pathOf(location, doc.number); }
  if (!newBody && Object.keys(set).length === 0) return { doc, changes: {}, moved: false };

  let updated: TemplateSummary | null;
  try {
    updated = await collection.findOneAndUpdate(
      { _id: doc._id, account: doc.account, id: doc.id },
      { $set: { ...set, lastModified: new Date() }, ...(newBody ? { $inc: { version: 1 } } : {}) },
      { returnDocument: 'after', projection: WITHOUT_BODIES },
    );
  } catch (error) {
    if (isDuplicateKey(error)) throw errors.conflict(`Another template already has the id ${set.id}`);
    throw error;
  }
  if (!updated) throw errors.notFound('No such template: it was moved or deleted meanwhile');
  if (moved && !(await folderStillThere(collection, doc.account, location))) {
    await collection.updateOne({ _id: doc._id, account: doc.account, id: set.id }, { $set: { id: doc.id, location: doc.location } });
    throw folderGone(location);
  }
  if (newBody) changes.version = updated.version;
  return { doc: updated, changes, moved };
}

/** Folders are deleted only when empty (a bad request otherwise): their templates are never deleted along. */
const folderNotEmpty = (id: string, count: number) =>
  errors.badRequest(`Folder ${id} is not empty: move or delete its ${count} template${count === 1 ? '' : 's'} first`);

/** Deletes a template, or an empty folder; false when there is none with this id. */
export async function deleteTemplate(store: Store, account: string, id: string): Promise<boolean> {
  const collection = store.templates;
  const doc = await collection.findOne({ account, id });
  if (!doc) return false;
  if (doc.type === 'FOLDER') {
    const inside = await collection.countDocuments({ account, location: id });
    if (inside > 0) throw folderNotEmpty(id, inside);
  }
  const { deletedCount } = await collection.deleteOne({ _id: doc._id, account, id });
  if (deletedCount === 0) return false;
  if (doc.type === 'FOLDER') {
    // A template created or moved into the folder between the check and the delete: put the
    // folder back (see folderStillThere for the other side).
    const inside = await collection.countDocuments({ account, location: id });
    if (inside > 0) {
      await collection.insertOne(doc).catch((error: unknown) => { if (!isDuplicateKey(error)) throw error; });
      throw folderNotEmpty(id, inside);
    }
  }
  return true;
}

/** What a transactional send takes from a template: its HTML (compiled, for MJML) and its defaults. */
export interface TemplateForSend { html: string; subject?: string; from?: TemplateAddress; reply_to?: TemplateAddress }

/**
 * The template a send's `template_id` names (`/3/12`, `3/12` or `12`), or null when the account
 * has no such HTML or MJML template (a folder is not one). The send replaces its content with the
 * HTML; from, reply_to and subject given in the send win over the template's.
 */
export async function findTemplateForSend(store: Store, account: string, templateId: string): Promise<TemplateForSend | null> {
  const id = normaliseTemplateId(templateId);
  if (!id) return null;
  const doc = await store.templates.findOne(
    { account, id, type: { $in: ['HTML', 'MJML'] } },
    { projection: { html: 1, subject: 1, from: 1, reply_to: 1 } },
  );
  if (!doc || doc.html === undefined) return null;
  return {
    html: doc.html,
    ...(doc.subject ? { subject: doc.subject } : {}),
    ...(doc.from ? { from: doc.from } : {}),
    ...(doc.reply_to ? { reply_to: doc.reply_to } : {}),
  };
}
