// One record of an import file as the contact it becomes, or the reasons it cannot: the same
// rules as the API (email format, name lengths, gender, language, custom field formats). Pure.
import { fitsFormat } from '../references';
import type { ImportParameters } from './options';
import {
  dateParser, importEmail, importGender, importLanguage, importPreferredFormat, interestNames, titleCase,
} from './values';
import type { ContactDoc, FieldDoc } from '../../../adapters/store/store';

export type ImportValues = Partial<Pick<ContactDoc, 'firstName' | 'lastName' | 'gender' | 'language' | 'preferredFormat'>>;

/** A record as a contact: only the cells that hold something (an empty cell changes nothing). */
export interface PreparedRow {
  /** Normalised; null when the row has none or an invalid one. */
  email: string | null;
  values: ImportValues;
  /** Custom field id → value as stored (DATE values as ISO dates). */
  customFields: Record<string, string>;
  interestNames: string[];
  /** Why the row cannot be imported (empty when it can). */
  problems: string[];
}

/** What reading a row needs: the columns' fields, the account's custom fields, the options on values. */
export interface RowRules {
  columnFields: number[];
  interestColumn: number | null;
  fields: Map<number, FieldDoc>;
  normalizeCase: boolean;
  parseDate: ((value: string) => string | null) | null;
  dateFormat: string | null;
}

export function rowRules(parameters: ImportParameters, fields: Map<number, FieldDoc>): RowRules {
  return {
    columnFields: parameters.columnFields,
    interestColumn: parameters.interestColumn,
    fields,
    normalizeCase: parameters.normalizeCase,
    parseDate: parameters.dateFormat ? dateParser(parameters.dateFormat) : null,
    dateFormat: parameters.dateFormat,
  };
}

const MAX_NAME = 100;
const shown = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);

type Plain = 'firstName' | 'lastName' | 'gender' | 'language' | 'preferredFormat';
const PLAIN: Record<number, { key: Plain; read: (value: string) => string | null; expected: string }> = {
  4: { key: 'gender', read: importGender, expected: 'M or F' },
  5: { key: 'language', read: importLanguage, expected: 'one of de, en, es, fr, it, pt' },
  7: { key: 'preferredFormat', read: importPreferredFormat, expected: 'HTML or TEXT' },
};

export function prepareRow(cells: string[], rules: RowRules): PreparedRow {
  const row: PreparedRow = { email: null, values: {}, customFields: {}, interestNames: [], problems: [] };
  rules.columnFields.forEach((id, i) => {
    const cell = (cells[i] ?? '').trim();
    if (id === 0) return;
    if (id === 3) {
      row.email = importEmail(cell);
      if (!row.email) row.problems.push(cell === '' ? 'No email address' : `Invalid email address ${shown(cell)}`);
      return;
    }
    if (cell === '') return;
    if (id === 1 || id === 2) {
      const key = id === 1 ? 'firstName' : 'lastName';
      if ([...cell].length > MAX_NAME) row.problems.push(`${key} longer than ${MAX_NAME} characters`);
      else row.values[key] = rules.normalizeCase ? titleCase(cell) : cell;
    } else if (PLAIN[id]) {
      const { key, read, expected } = PLAIN[id];
      const value = read(cell);
      if (value === null) row.problems.push(`${key} ${shown(cell)} is not ${expected}`);
      else Object.assign(row.values, { [key]: value });
    } else {
      customValue(row, rules, id, cell);
    }
  });
  if (rules.interestColumn !== null) {
    row.interestNames = interestNames(cells[rules.interestColumn] ?? '');
    const long = row.interestNames.find((n) => [...n].length > MAX_NAME);
    if (long) row.problems.push(`Interest name ${shown(long)} longer than ${MAX_NAME} characters`);
  }
  return row;
}

function customValue(row: PreparedRow, rules: RowRules, id: number, cell: string): void {
  const field = rules.fields.get(id);
  if (!field) return; // checked before the import starts
  let value: string | null = cell;
  if (field.format === 'DATE') value = rules.parseDate?.(cell) ?? (fitsFormat(cell, 'DATE') ? cell : null);
  else if (!fitsFormat(cell, field.format)) value = null;
  if (value === null) {
    const expected = field.format === 'DATE' ? `a date (${rules.dateFormat ?? 'ISO 8601, or give dateFormat'})` : field.format === 'INT' ? 'an integer' : 'at most 1000 characters';
    row.problems.push(`${shown(cell)} is not ${expected} for the field ${field.name}`);
    return;
  }
  row.customFields[String(id)] = value;
}
