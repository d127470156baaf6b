// The options of a contacts import (the original's keys), and how the missing ones are inferred
// from the beginning of the file: the separator from the first lines, a header row when the first
// row holds no email address, the columns from the header names or from where the addresses are.
// Pure: the caller reads the sample and the account's custom fields.
import { fieldError, type FieldError } from '../../shared/errors';
import { BUILT_IN_FIELDS } from '../fields';
import { meaningsOfHeaders } from './headers';
import { sampleRecords } from './source';
import { importEmail } from './values';
import type { FieldDoc } from '../../../adapters/store/store';

export type ImportMode = 'IGNORE' | 'OVERWRITE';

/** What a client asked for, in validated shapes; every option may be absent. */
export interface ImportRequest {
  sourceRaw?: string;
  sourceFile?: string;
  sourceFileEncoding?: string;
  list?: number;
  interests?: number[];
  mode?: ImportMode;
  normalizeCase?: boolean;
  /** Index (from 0, as in columnFields) of the column holding interest names. */
  interestColumn?: number;
  interestDefaultExpirationDays?: number;
  /** A field id per column; 0 skips the column. */
  columnFields?: number[];
  columnHeaders?: boolean;
  columnSeparator?: string;
  stringDelimiter?: string;
  dateFormat?: string;
}

/** The options an import runs with, every one decided: the task's `parameters`. */
export interface ImportParameters {
  type: 'CSV';
  /** The stored file (an upload, or `raw-…` for data sent inline). */
  sourceFile: string;
  sourceFileEncoding: string;
  list: number | null;
  interests: number[];
  mode: ImportMode;
  normalizeCase: boolean;
  interestColumn: number | null;
  interestDefaultExpirationDays: number;
  columnFields: number[];
  columnHeaders: boolean;
  columnSeparator: string;
  stringDelimiter: string;
  dateFormat: string | null;
}

/** The column options, decided (what inferColumns gives). */
export type ColumnOptions = Pick<ImportParameters, 'columnFields' | 'columnHeaders' | 'columnSeparator' | 'stringDelimiter' | 'interestColumn'>;

export const SEPARATORS = [',', ';', '\t', '|'];
const SAMPLE_RECORDS = 50;
const cellsOf = (sample: string, separator: string, quote: string, records: number) => sampleRecords(sample, separator, quote, records).map((r) => r.cells);

/**
 * The separator that splits the first lines most evenly into more than one column: the one whose
 * records most often have the first record's column count (more columns breaks a tie, then the
 * order `,` `;` tab `|`). A file of one column: `,`.
 */
export function inferSeparator(sample: string, quote: string): string {
  let best = { separator: ',', score: 0, columns: 1 };
  for (const separator of SEPARATORS) {
    const records = cellsOf(sample, separator, quote, 20);
    const columns = records[0]?.length ?? 0;
    if (columns < 2) continue;
    const score = records.filter((r) => r.length === columns).length;
    if (score > best.score || (score === best.score && columns > best.columns)) best = { separator, score, columns };
  }
  return best.separator;
}

/** The column where most records hold a valid email address, or -1. */
function emailColumn(records: string[][]): number {
  const counts: number[] = [];
  for (const record of records) record.forEach((cell, i) => { if (importEmail(cell)) counts[i] = (counts[i] ?? 0) + 1; });
  let best = -1;
  counts.forEach((count, i) => { if (count > 0 && (best < 0 || count > counts[best])) best = i; });
  return best;
}

export interface InferredColumns {
  options: ColumnOptions;
  /** The header row, when there is one. */
  headers: string[] | null;
  /** Columns seen in the sample (at least those columnFields names). */
  columnCount: number;
  problems: Record<string, FieldError>;
}

/** Decides the column options the request left out, and checks the ones it gave. */
export function inferColumns(request: ImportRequest, sample: string, customFields: FieldDoc[]): InferredColumns {
  const stringDelimiter = request.stringDelimiter ?? '"';
  const columnSeparator = request.columnSeparator ?? inferSeparator(sample, stringDelimiter);
  const problems: Record<string, FieldError> = {};
  if (columnSeparator === stringDelimiter) problems.stringDelimiter = fieldError('invalid_value', 'Must differ from columnSeparator');
  const records = problems.stringDelimiter ? [] : cellsOf(sample, columnSeparator, stringDelimiter, SAMPLE_RECORDS);
  const columnHeaders = request.columnHeaders ?? (records.length > 0 && !records[0].some((cell) => importEmail(cell)));
  const headers = columnHeaders && records.length > 0 ? records[0] : null;
  const data = columnHeaders ? records.slice(1) : records;
  const meanings = headers ? meaningsOfHeaders(headers, customFields) : [];
  let interestColumn = request.interestColumn ?? null;
  if (interestColumn === null && request.columnFields === undefined) {
    const named = meanings.findIndex((m) => m !== null && 'interests' in m);
    if (named >= 0) interestColumn = named;
  }
  const columnCount = Math.max(0, ...records.map((r) => r.length), request.columnFields?.length ?? 0);
  let columnFields = request.columnFields;
  if (columnFields === undefined) {
    columnFields = Array.from({ length: columnCount }, (_, i) => {
      const meaning = meanings[i];
      return meaning && 'field' in meaning && i !== interestColumn ? meaning.field : 0;
    });
    const byData = emailColumn(data);
    if (!columnFields.includes(3) && byData >= 0 && byData !== interestColumn) columnFields[byData] = 3;
  }
  checkColumnFields(columnFields, customFields, interestColumn, columnCount, problems);
  return { options: { columnFields, columnHeaders, columnSeparator, stringDelimiter, interestColumn }, headers, columnCount, problems };
}

const BUILT_IN_IDS = new Set(BUILT_IN_FIELDS.map((f) => f.id));

function checkColumnFields(
  columnFields: number[], customFields: FieldDoc[], interestColumn: number | null, columnCount: number, problems: Record<string, FieldError>,
): void {
  const custom = new Set(customFields.map((f) => f.id));
  const first = new Map<number, number>();
  columnFields.forEach((id, i) => {
    if (id === 0) return;
    if (!BUILT_IN_IDS.has(id) && !custom.has(id)) problems[`columnFields[${i}]`] = fieldError('invalid_value', `No field with id ${id}`);
    else if (first.has(id)) problems[`columnFields[${i}]`] = fieldError('invalid_value', `Field ${id} is already read from column ${first.get(id)}`);
    else first.set(id, i);
  });
  if (!first.has(3)) {
    problems.columnFields ??= fieldError('invalid_value', 'No column holds email addresses: name it with columnFields (field id 3 is the email)');
  }
  if (interestColumn !== null) {
    if (columnCount > 0 && interestColumn >= columnCount) {
      problems.interestColumn = fieldError('invalid_value', `The file has ${columnCount} columns (numbered from 0)`);
    } else if ((columnFields[interestColumn] ?? 0) !== 0) {
      problems.interestColumn = fieldError('invalid_value', `Column ${interestColumn} is read as field ${columnFields[interestColumn]} in columnFields (give it 0)`);
    }
  }
}
