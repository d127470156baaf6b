// Bodies of a contacts import and its preview for fuzzing: inline CSV of a few rows (valid and
// odd emails, names, numbers, separators, quotes, header or not) with the original's options,
// some given and some left to inference, in the shapes clients send them.
import fc from 'fast-check';

const separator = fc.constantFrom(',', ';', '\t', '|');
const cell = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', ' ', '"', '\'', 'a,b', 'Ñandú', 'Zoë', '1990-01-02', '31/12/1990', '42', 'x'.repeat(120)));
const email = fc.oneof({ weight: 4, arbitrary: fc.emailAddress({ size: 'small' }) }, { weight: 1, arbitrary: cell });

/** Inline CSV: an optional header, then 1 to 8 rows of an email and two more cells. */
const sourceRaw = fc.tuple(separator, fc.boolean(), fc.array(fc.tuple(email, cell, cell), { minLength: 1, maxLength: 8 })).map(([sep, header, rows]) => {
  const quote = (value: string) => (/[",;|\t\n']/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  const lines = rows.map((row) => row.map(quote).join(sep));
  return `${header ? ['email', 'firstName', 'Customer number'].join(sep) + '\n' : ''}${lines.join('\n')}\n`;
});

/** Mostly a valid value, now and then one the import refuses. */
const mostly = <T, U>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<U>) => fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: invalid });

/** An import or preview request: inline CSV with some of the options, nearly always valid before mutation. */
export const validImport = fc.record({
  type: fc.constantFrom('CSV', 'csv'),
  sourceRaw,
  sourceFileEncoding: mostly(fc.constantFrom('UTF-8', 'ISO-8859-1', 'latin1'), fc.constant('klingon')),
  list: mostly(fc.constantFrom(1, '1', null), fc.constant(9999)),
  interests: mostly(fc.array(fc.oneof(fc.constant(1), fc.constant({ id: 1 })), { maxLength: 2 }), fc.constant([9999])),
  mode: mostly(fc.constantFrom('IGNORE', 'OVERWRITE', 'overwrite'), fc.constant('MERGE')),
  normalizeCase: fc.constantFrom(true, false, '1', '0'),
  interestColumn: mostly(fc.constant(null), fc.constantFrom(2, 9)),
  interestDefaultExpirationDays: fc.integer({ min: 0, max: 400 }),
  columnFields: mostly(fc.constantFrom([3], [3, 1], [3, 0, 0], [3, 2, 1], ['3', '', null]), fc.constantFrom([1, 2], [3, 3], [3, 99], [0, 7, 3])),
  columnHeaders: fc.boolean(),
  stringDelimiter: mostly(fc.constantFrom('"', '\''), fc.constant(',')),
  dateFormat: mostly(fc.constantFrom('dd/mm/yyyy', 'yyyy-mm-dd', 'mm/dd/yy'), fc.constant('nonsense')),
}, { requiredKeys: ['sourceRaw'] });
