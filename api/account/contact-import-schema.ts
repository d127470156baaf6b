// The body of POST /contacts/import and /contacts/import/preview, with the original's keys, as
// JSON or form-encoded (where every value is a string: `columnFields[]=3`, `normalizeCase=1`).
import { FILE_NAME } from '../../adapters/store/files';
import { MAX_SOURCE_RAW_CHARS, type ImportMode, type ImportRequest } from '../../core/contacts/import/start';
import { errors, fieldError, type FieldError } from '../../core/shared/errors';
import { isDateFormat } from '../../core/contacts/import/values';
import { validator } from '../validation';

const id = { type: ['integer', 'string'], pattern: '^\\d{1,9}$', minimum: 1, maximum: 999_999_999 } as const;
const index = { type: ['integer', 'string', 'null'], pattern: '^\\d{0,4}$', minimum: 0, maximum: 9999 } as const;
const flag = { type: ['boolean', 'string', 'integer', 'null'], enum: [true, false, 'true', 'false', '1', '0', '', 1, 0, null] } as const;
const MODES = ['IGNORE', 'OVERWRITE'];

export const importSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['CSV', 'csv'], description: 'Only `CSV`.' },
    sourceRaw: { type: 'string', maxLength: MAX_SOURCE_RAW_CHARS, description: 'The CSV itself (give this or `sourceFile`).' },
    sourceFile: { type: 'string', pattern: FILE_NAME.source, description: 'The `data.id` of an upload (POST /contacts/import/upload).' },
    sourceFileEncoding: { type: ['string', 'null'], maxLength: 40, description: 'e.g. `UTF-8` or `ISO-8859-1`; by default UTF-8, or ISO-8859-1 when the file is not valid UTF-8.' },
    list: { ...id, type: ['integer', 'string', 'null'], description: 'The list every imported contact joins.' },
    interests: { type: 'array', maxItems: 1000, items: { type: ['integer', 'string', 'object'] }, description: 'Interests every imported contact gets: ids, or objects with an `id`.' },
    mode: { type: ['string', 'null'], description: '`IGNORE` (default: contacts that exist stay as they are) or `OVERWRITE` (they take the row\'s non-empty values, the list and the interests; needs contacts:update).' },
    normalizeCase: { ...flag, description: 'First and last names in Title Case.' },
    interestColumn: { ...index, description: 'The column (from 0, as in `columnFields`) holding interest names, separated by `,`, `|` or `;`; unknown names become new interests.' },
    interestDefaultExpirationDays: { type: ['integer', 'string', 'null'], pattern: '^\\d{1,5}$', minimum: 0, maximum: 99_999, description: 'expirationDays of the interests the import creates (0: never).' },
    columnFields: {
      type: 'array', maxItems: 1000, items: { ...index, pattern: '^\\d{0,9}$', maximum: 999_999_999 },
      description: 'A field id per column: 1 first name, 2 last name, 3 email, 4 gender, 5 language, 7 preferred format, 10 and up custom fields; 0, null or "" skips the column. By default from the header names, and the email column from the data.',
    },
    columnHeaders: { ...flag, description: 'Whether the first row is a header; by default, when it holds no email address.' },
    columnSeparator: { type: ['string', 'null'], maxLength: 3, description: 'One character, or `tab`; by default the one of `,` `;` tab `|` that splits the first lines evenly.' },
    stringDelimiter: { type: ['string', 'null'], maxLength: 1, description: 'The quote around values (default `"`).' },
    dateFormat: { type: ['string', 'null'], maxLength: 20, description: 'How DATE custom fields are written, e.g. `dd/mm/yyyy` (stored as ISO dates); ISO 8601 is always read.' },
  },
} as const;

interface RawImport {
  type?: string; sourceRaw?: string; sourceFile?: string; sourceFileEncoding?: string | null;
  list?: number | string | null; interests?: unknown[]; mode?: string | null; normalizeCase?: unknown;
  interestColumn?: number | string | null; interestDefaultExpirationDays?: number | string | null;
  columnFields?: Array<number | string | null>; columnHeaders?: unknown; columnSeparator?: string | null;
  stringDelimiter?: string | null; dateFormat?: string | null;
}
const validate = validator<RawImport>(importSchema);

const number = (value: number | string | null | undefined) => (value === undefined || value === null || value === '' ? undefined : Number(value));
const bool = (value: unknown) => (value === undefined || value === null || value === '' ? undefined : value === true || value === 'true' || value === '1' || value === 1);
const text = (value: string | null | undefined) => (value === undefined || value === null || value === '' ? undefined : value);

/** The validated body as the import's request; VALIDATION_ERROR naming every bad key. */
export function toImportRequest(body: unknown): ImportRequest {
  const raw = validate(body ?? {});
  const problems: Record<string, FieldError> = {};
  if ((raw.sourceRaw === undefined) === (raw.sourceFile === undefined)) {
    problems.sourceFile = fieldError('invalid_value', 'Give either sourceFile (an upload) or sourceRaw (the CSV itself)');
  }
  const mode = text(raw.mode)?.toUpperCase();
  if (mode !== undefined && !MODES.includes(mode)) problems.mode = fieldError('invalid_value', `Must be one of: ${MODES.join(', ')}`);
  const interests = raw.interests?.map((item, i) => {
    const value = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : item;
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(n) || n < 1) problems[`interests[${i}]`] = fieldError('invalid_value', 'Must be an interest id');
    return n;
  });
  const separator = text(raw.columnSeparator);
  const columnSeparator = separator === undefined ? undefined : /^(tab|\\t)$/i.test(separator) ? '\t' : separator;
  if (columnSeparator !== undefined && [...columnSeparator].length !== 1) problems.columnSeparator = fieldError('invalid_value', 'One character, or tab');
  if (columnSeparator !== undefined && /[\r\n]/.test(columnSeparator)) problems.columnSeparator = fieldError('invalid_value', 'Not a line break');
  const stringDelimiter = text(raw.stringDelimiter);
  if (stringDelimiter !== undefined && /[\r\n]/.test(stringDelimiter)) problems.stringDelimiter = fieldError('invalid_value', 'Not a line break');
  const dateFormat = text(raw.dateFormat);
  if (dateFormat !== undefined && !isDateFormat(dateFormat)) {
    problems.dateFormat = fieldError('invalid_value', 'Day, month and year (d or dd, m or mm, yy or yyyy) separated by / - . or spaces, e.g. dd/mm/yyyy');
  }
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  const request: ImportRequest = {
    sourceRaw: raw.sourceRaw,
    sourceFile: raw.sourceFile,
    sourceFileEncoding: text(raw.sourceFileEncoding),
    list: number(raw.list),
    interests,
    mode: mode as ImportMode | undefined,
    normalizeCase: bool(raw.normalizeCase),
    interestColumn: number(raw.interestColumn),
    interestDefaultExpirationDays: number(raw.interestDefaultExpirationDays),
    columnFields: raw.columnFields?.map((f) => number(f) ?? 0),
    columnHeaders: bool(raw.columnHeaders),
    columnSeparator,
    stringDelimiter,
    dateFormat,
  };
  for (const key of Object.keys(request) as Array<keyof ImportRequest>) if (request[key] === undefined) delete request[key];
  return request;
}
