// Contacts import as the API starts it: the request's options checked against the account (list,
// interests, fields, file) and completed from the beginning of the source (core/contact-import-
// options.ts), a preview of the first rows, and inline data stored as a file so that the task's
// workflow receives only the task id (claim check). The import itself: core/contacts/import/run.ts.
import { randomBytes } from 'node:crypto';
import { errors, fieldError, type FieldError } from '../../shared/errors';
import { builtInField } from '../fields';
import { findFile, saveFile } from '../../../adapters/store/files';
import { InterestsByName } from './interests';
import { inferColumns, type ImportParameters, type ImportRequest } from './options';
import { prepareRow, rowRules } from './rows';
import { encodingLabel, fileHead, rawHead, sampleRecords, type SourceHead } from './source';
import type { FieldDoc, Store } from '../../../adapters/store/store';

export { summary, runImport, ImportInputError, type ImportCounts, type ImportCheckpoint } from './run';
export type { ImportParameters, ImportRequest, ImportMode } from './options';

/** Uploads larger than this are refused (payload too large, at the HTTP edge) and not kept. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** Inline CSV (`sourceRaw`), in characters. */
export const MAX_SOURCE_RAW_CHARS = 10 * 1024 * 1024;
export const PREVIEW_ROWS = 10;

/** One column as an import reads it. */
export interface ImportColumn { index: number; header: string | null; field: number; fieldName: string | null; interests: boolean }

export interface ImportPlan {
  /** Every option decided; `sourceFile` is '' for inline data until it is stored. */
  parameters: ImportParameters;
  columns: ImportColumn[];
  head: SourceHead;
  fields: Map<number, FieldDoc>;
}

/** A name for a stored source: an unguessable part, then what the client called it (letters, digits, `._-`). */
export function sourceFileName(kind: 'upload' | 'raw', clientName = ''): string {
  const given = clientName.replace(/^.*[\\/]/, '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(-100);
  return `${kind}-${randomBytes(12).toString('hex')}${given ? `-${given}` : '.csv'}`;
}

/** What the task is called: the name the client gave its upload, or "raw data". */
export function importName(parameters: ImportParameters, inline: boolean): string {
  if (inline) return 'Import raw data';
  const match = /^upload-[0-9a-f]{24}-(.+)$/.exec(parameters.sourceFile);
  return `Import ${match ? match[1] : parameters.sourceFile}`;
}

/**
 * Checks a request against the account and its source, and decides every option it left out.
 * NOT_FOUND when `sourceFile` is not one of the account's files; one VALIDATION_ERROR naming every
 * other problem (unknown list, interests or fields, no email column, an unknown encoding).
 */
export async function planImport(store: Store, account: string, request: ImportRequest): Promise<ImportPlan> {
  const problems: Record<string, FieldError> = {};
  const encoding = request.sourceFileEncoding === undefined ? undefined : encodingLabel(request.sourceFileEncoding);
  if (encoding === null) problems.sourceFileEncoding = fieldError('invalid_value', 'Unknown encoding (try UTF-8 or ISO-8859-1)');
  let head: SourceHead;
  if (request.sourceRaw !== undefined) {
    head = rawHead(request.sourceRaw);
  } else {
    const file = await findFile(store, account, request.sourceFile!);
    if (!file) throw errors.notFound(`No uploaded file named ${request.sourceFile!.slice(0, 200)} (upload it with POST /contacts/import/upload)`);
    head = await fileHead(store, file, encoding ?? undefined);
  }
  const [list, interests, customFields] = await Promise.all([
    request.list === undefined ? null : store.lists.findOne({ _id: `${account}:${request.list}`, account }),
    InterestsByName.load(store, account, 0),
    store.fields.find({ account }).sort({ id: 1 }).toArray(),
  ]);
  if (request.list !== undefined && !list) problems.list = fieldError('invalid_value', `No list with id ${request.list}`);
  request.interests?.forEach((id, i) => {
    if (!interests.names.has(id)) problems[`interests[${i}]`] ??= fieldError('invalid_value', `No interest with id ${id}`);
  });
  const inferred = inferColumns(request, head.text, customFields);
  Object.assign(problems, inferred.problems);
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  const fields = new Map(customFields.map((f) => [f.id, f]));
  const parameters: ImportParameters = {
    type: 'CSV',
    sourceFile: request.sourceFile ?? '',
    sourceFileEncoding: head.encoding,
    list: request.list ?? null,
    interests: [...new Set(request.interests ?? [])],
    mode: request.mode ?? 'IGNORE',
    normalizeCase: request.normalizeCase ?? false,
    interestDefaultExpirationDays: request.interestDefaultExpirationDays ?? 0,
    dateFormat: request.dateFormat ?? null,
    ...inferred.options,
  };
  const columns = Array.from({ length: Math.max(inferred.columnCount, parameters.columnFields.length) }, (_, index): ImportColumn => {
    const field = parameters.columnFields[index] ?? 0;
    return {
      index,
      header: inferred.headers?.[index] ?? null,
      field,
      fieldName: field === 0 ? null : builtInField(field)?.name ?? fields.get(field)?.name ?? null,
      interests: index === parameters.interestColumn,
    };
  });
  return { parameters, columns, head, fields };
}

/** Stores inline CSV as the import's file (UTF-8); the name to give the task. */
export async function saveRawSource(store: Store, account: string, raw: string): Promise<string> {
  const name = sourceFileName('raw');
  await saveFile(store, account, name, 'upload', 'text/csv; charset=utf-8', raw);
  return name;
}

/**
 * The first PREVIEW_ROWS rows as the contacts they would become, each with what the import would
 * do with it (`create`, `update`, `ignore`, or `error` with its problems). Reads only the source's
 * beginning, and one contact per row by its email; creates nothing (new interest names show id null).
 */
export async function previewImport(store: Store, account: string, plan: ImportPlan) {
  const { parameters: p } = plan;
  const rules = rowRules(p, plan.fields);
  const records = sampleRecords(plan.head.text, p.columnSeparator, p.stringDelimiter, PREVIEW_ROWS + (p.columnHeaders ? 1 : 0));
  const [listName, interests] = await Promise.all([
    p.list === null ? null : store.lists.findOne({ _id: `${account}:${p.list}`, account }).then((l) => l?.name ?? null),
    InterestsByName.load(store, account, p.interestDefaultExpirationDays),
  ]);
  const seen = new Map<string, number>();
  const rows = records.slice(p.columnHeaders ? 1 : 0).map(({ cells, line }) => {
    const row = prepareRow(cells, rules);
    if (row.problems.length === 0 && row.email) {
      if (seen.has(row.email)) row.problems.push(`Duplicate of row ${seen.get(row.email)} (same email ${row.email})`);
      else seen.set(row.email, line);
    }
    return { line, row };
  });
  const existing = await Promise.all(rows.map(({ row }) => (row.email && row.problems.length === 0
    ? store.contacts.findOne({ account, email: row.email }, { projection: { id: 1 } }) : null)));
  return rows.map(({ line, row }, i) => ({
    row: line,
    action: row.problems.length > 0 ? 'error' : existing[i] ? (p.mode === 'OVERWRITE' ? 'update' : 'ignore') : 'create',
    email: row.email,
    ...row.values,
    customFields: Object.entries(row.customFields).map(([id, value]) => ({ id: Number(id), name: plan.fields.get(Number(id))?.name, value })),
    lists: p.list === null ? [] : [{ id: p.list, name: listName }],
    interests: [
      ...p.interests.map((id) => ({ id, name: interests.names.get(id) ?? null })),
      ...row.interestNames.map((name) => ({ id: interests.idOf(name) ?? null, name })),
    ],
    problems: row.problems,
  }));
}
