// The number and date patterns of ?string("…"), compiled once per template. Dates are ISO 8601
// text or epoch milliseconds and always format in UTC, so output does not depend on the server's
// time zone. Numbers round half-up (Java's DecimalFormat rounds half-even), as a reader of an
// invoice expects.
import { Problem } from './error';

/** A date pattern has a letter outside quotes; a number pattern ("#,##0.00") has none. */
export function isDatePattern(pattern: string): boolean {
  let quoted = false;
  for (const ch of pattern) {
    if (ch === "'") quoted = !quoted;
    else if (!quoted && /[A-Za-z]/.test(ch)) return true;
  }
  return false;
}

const pad = (n: number, width: number) => (n < 0 ? '-' : '') + String(Math.abs(n)).padStart(width, '0');
type Field = (d: Date) => string;
const upTo2 = (get: (d: Date) => number) => (count: number): Field | undefined => (count <= 2 ? (d) => pad(get(d), count) : undefined);
const DATE_FIELDS = new Map<string, (count: number) => Field | undefined>([
  ['y', (count) => (count === 2 ? (d) => pad(d.getUTCFullYear() % 100, 2) : (d) => pad(d.getUTCFullYear(), count))],
  ['M', upTo2((d) => d.getUTCMonth() + 1)],
  ['d', upTo2((d) => d.getUTCDate())],
  ['H', upTo2((d) => d.getUTCHours())],
  ['m', upTo2((d) => d.getUTCMinutes())],
  ['s', upTo2((d) => d.getUTCSeconds())],
  ['S', (count) => (count <= 3 ? (d) => pad(d.getUTCMilliseconds(), count) : undefined)],
]);

/** A SimpleDateFormat-style pattern: yyyy yy MM M dd d HH H mm m ss s SSS, 'quoted text', '' for a quote. */
export function compileDatePattern(pattern: string): (ms: number) => string {
  const parts: Array<string | Field> = [];
  let literal = '';
  for (let i = 0; i < pattern.length; ) {
    const ch = pattern[i];
    if (ch === "'") {
      i = quoted(pattern, i, (text) => (literal += text));
    } else if (/[A-Za-z]/.test(ch)) {
      let j = i;
      while (pattern[j] === ch) j++;
      const field = DATE_FIELDS.get(ch)?.(j - i);
      if (!field) throw new Problem(`Unsupported '${pattern.slice(i, j)}' in the date pattern "${pattern}" (use yyyy, yy, MM, M, dd, d, HH, H, mm, m, ss, s, SSS)`);
      if (literal) parts.push(literal);
      literal = '';
      parts.push(field);
      i = j;
    } else {
      literal += ch;
      i++;
    }
  }
  if (literal) parts.push(literal);
  return (ms) => {
    const date = new Date(ms);
    let out = '';
    for (const part of parts) out += typeof part === 'string' ? part : part(date);
    return out;
  };
}

/** Reads the quoted text at `start` ('' outside or inside quotes is one quote); returns the offset after it. */
function quoted(pattern: string, start: number, add: (text: string) => void): number {
  if (pattern[start + 1] === "'") {
    add("'");
    return start + 2;
  }
  for (let from = start + 1; ; ) {
    const close = pattern.indexOf("'", from);
    if (close < 0) throw new Problem(`Unclosed quote in the date pattern "${pattern}"`);
    add(pattern.slice(from, close));
    if (pattern[close + 1] !== "'") return close + 1;
    add("'");
    from = close + 2;
  }
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Epoch milliseconds of an ISO 8601 date or date-time; no offset means UTC (not the server's zone). */
export function parseIsoDate(text: string): number | undefined {
  const m = ISO_DATE.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => (m[i] ? Number(m[i]) : 0));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : MONTH_DAYS[month - 1];
  if (!days || day < 1 || day > days || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0);
  const zone = m[8];
  if (!zone || zone === 'Z' || zone === 'z') return date.getTime();
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
  return date.getTime() - (zone[0] === '-' ? -1 : 1) * minutes * 60_000;
}

/** A DecimalFormat-style pattern: '0' a required digit, '#' an optional one, ',' grouping, '%' percent. */
export function compileNumberPattern(pattern: string): (n: number) => string {
  const invalid = () => new Problem(`Invalid number pattern "${pattern}" (examples: "0.00", "#,##0.##")`);
  const m = /^([^0#,.]*)([0#,.]+)([^0#,.]*)$/.exec(pattern);
  if (!m) throw invalid();
  const [, prefix, body, suffix] = m;
  const dot = body.indexOf('.');
  const intPart = dot < 0 ? body : body.slice(0, dot);
  const fracPart = dot < 0 ? '' : body.slice(dot + 1);
  if (!/^[#,]*[0,]*$/.test(intPart) || !/^0*#*$/.test(fracPart)) throw invalid();
  const lastComma = intPart.lastIndexOf(',');
  const groupSize = lastComma < 0 ? 0 : intPart.length - lastComma - 1;
  if (lastComma >= 0 && groupSize === 0) throw invalid();
  const minInt = intPart.split('0').length - 1;
  const minFrac = fracPart.split('0').length - 1;
  const maxFrac = fracPart.length;
  const scale = (prefix + suffix).includes('%') ? 100 : 1;
  const grouping = groupSize ? new RegExp(`\\B(?=(\\d{${groupSize}})+(?!\\d))`, 'g') : null;
  return (n) => {
    const x = Math.abs(n * scale);
    if (!Number.isFinite(x) || x >= 1e21) return prefix + String(n * scale) + suffix;
    const [fixedInt, fixedFrac = ''] = roundHalfUp(x, maxFrac).toFixed(maxFrac).split('.');
    let frac = fixedFrac;
    while (frac.length > minFrac && frac.endsWith('0')) frac = frac.slice(0, -1);
    let int = fixedInt.padStart(minInt, '0');
    if (minInt === 0 && int === '0') int = frac ? '' : '0';
    if (grouping) int = int.replace(grouping, ',');
    const digits = frac ? `${int}.${frac}` : int;
    const sign = n < 0 && /[1-9]/.test(digits) ? '-' : '';
    return prefix + sign + digits + suffix;
  };
}

/** Rounds through the decimal text, so 1.005 is 1.01 (binary 1.005 is a hair below it). */
function roundHalfUp(x: number, digits: number): number {
  const text = String(x);
  if (text.includes('e')) return Number(x.toFixed(digits));
  const shifted = Math.round(Number(`${text}e${digits}`));
  return shifted >= 1e21 ? x : Number(`${shifted}e-${digits}`);
}
