// The values a template works with: model lookups (own data only), truthiness, conversions,
// comparisons, and how a value is written out (escaping, single-line).
import type { CmpOp } from './expr';
import { compileDatePattern, parseIsoDate } from './format';

/** Text exempt from HTML auto-escaping: made by ?no_esc and by ?html (already escaped). */
export class Raw {
  constructor(readonly text: string) {}
}

export type DateKind = 'date' | 'datetime' | 'time';

/** A point in time made by ?date, ?datetime or ?time; written in that kind's default format. */
export class DateValue {
  constructor(
    readonly ms: number,
    readonly kind: DateKind,
  ) {}
}

const DEFAULT_FORMATS: Record<DateKind, (ms: number) => string> = {
  date: compileDatePattern('yyyy-MM-dd'),
  datetime: compileDatePattern('yyyy-MM-dd HH:mm:ss'),
  time: compileDatePattern('HH:mm:ss'),
};

// Names that lead to prototypes in JavaScript: always missing, even as the model's own keys.
const BLOCKED = new Set(['__proto__', 'constructor', 'prototype']);
const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** A field of a model value: own data only, so nothing inherited (prototypes, methods) is reachable. */
export function child(value: unknown, key: string | number): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Raw || value instanceof DateValue) return undefined;
  let found: unknown;
  if (Array.isArray(value)) {
    found = typeof key === 'number' && Number.isInteger(key) && key >= 0 ? value[key] : undefined;
  } else {
    const name = String(key);
    found = BLOCKED.has(name) || !hasOwn(value, name) ? undefined : (value as Record<string, unknown>)[name];
  }
  // A model is JSON data: a function (from a caller passing objects) is never called nor shown.
  return typeof found === 'function' ? undefined : found;
}

export function walk(value: unknown, steps: ReadonlyArray<string | number>): unknown {
  let v = value;
  for (const step of steps) {
    if (v === undefined) return undefined;
    v = child(v, step);
  }
  return v;
}

export function isMissing(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

/** When `!` applies its default: missing, null or empty text. */
export function isBlank(value: unknown): boolean {
  return isMissing(value) || value === '' || (value instanceof Raw && value.text === '');
}

function isEmptyCollection(value: object): boolean {
  if (Array.isArray(value)) return value.length === 0;
  for (const key in value) if (hasOwn(value, key)) return false;
  return true;
}

/** The truth of a condition: false for missing, null, false, "", 0 (and NaN), empty arrays and objects. */
export function truthy(value: unknown): boolean {
  if (typeof value === 'object' && value !== null) {
    if (value instanceof Raw) return value.text !== '';
    return value instanceof DateValue || !isEmptyCollection(value);
  }
  return Boolean(value);
}

/** ?has_content: not blank and not an empty array or object (unlike truthiness, 0 and false count). */
export function hasContent(value: unknown): boolean {
  if (isBlank(value)) return false;
  return typeof value !== 'object' || value === null || value instanceof Raw || value instanceof DateValue || !isEmptyCollection(value);
}

/** A scalar as text; undefined for missing values, arrays and objects (they have no text form). */
export function toText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'object':
      if (value instanceof Raw) return value.text;
      if (value instanceof DateValue) return DEFAULT_FORMATS[value.kind](value.ms);
      return undefined;
    default:
      return undefined;
  }
}

const NUMERIC = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/** A number, or text that is one ("12.5"). */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  const text = typeof value === 'string' ? value : value instanceof Raw ? value.text : undefined;
  return text !== undefined && NUMERIC.test(text) ? Number(text) : undefined;
}

const MAX_DATE_MS = 8.64e15;

/** Epoch milliseconds of a date value, epoch-millis number or ISO 8601 text. */
export function toMillis(value: unknown): number | undefined {
  if (value instanceof DateValue) return value.ms;
  if (typeof value === 'number') return Number.isFinite(value) && Math.abs(value) <= MAX_DATE_MS ? value : undefined;
  const text = typeof value === 'string' ? value : value instanceof Raw ? value.text : undefined;
  return text === undefined ? undefined : parseIsoDate(text);
}

/** Sign of a - b, or undefined when the two cannot be ordered (different kinds, missing values). */
function order(a: unknown, b: unknown): number | undefined {
  const x = a instanceof Raw ? a.text : a;
  const y = b instanceof Raw ? b.text : b;
  if (x instanceof DateValue || y instanceof DateValue) {
    const [mx, my] = [toMillis(x), toMillis(y)];
    return mx === undefined || my === undefined ? undefined : Math.sign(mx - my);
  }
  if (typeof x === 'number' || typeof y === 'number') {
    const [nx, ny] = [toNumber(x), toNumber(y)];
    return nx === undefined || ny === undefined || Number.isNaN(nx - ny) ? undefined : Math.sign(nx - ny);
  }
  if (typeof x === 'string' && typeof y === 'string') return x < y ? -1 : x > y ? 1 : 0;
  return undefined;
}

function equals(a: unknown, b: unknown): boolean {
  if (isMissing(a) || isMissing(b)) return isMissing(a) && isMissing(b);
  if (typeof a === 'boolean' || typeof b === 'boolean') return a === b;
  return order(a, b) === 0;
}

const ordered = (test: (sign: number) => boolean) => (a: unknown, b: unknown) => {
  const sign = order(a, b);
  return sign !== undefined && test(sign);
};

/** Comparisons: numbers (and numeric text) by value, text by code unit, dates by time; anything else is unequal and unordered. */
export const COMPARE: Record<CmpOp, (a: unknown, b: unknown) => boolean> = {
  '==': equals,
  '!=': (a, b) => !equals(a, b),
  '<': ordered((s) => s < 0),
  '<=': ordered((s) => s <= 0),
  '>': ordered((s) => s > 0),
  '>=': ordered((s) => s >= 0),
};

const HTML_SPECIAL = /[&<>"']/;
const HTML_SPECIALS = /[&<>"']/g;
const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return HTML_SPECIAL.test(text) ? text.replace(HTML_SPECIALS, (ch) => HTML_ENTITIES[ch]) : text;
}

const LINE_BREAKS = /\r\n?|\n/g;

/** How an interpolated value is written: missing and non-scalars as "", then escaped, then kept on one line. */
export function presenter(options: { html: boolean; singleLine: boolean }): (value: unknown) => string {
  const { html, singleLine } = options;
  return (value) => {
    let text = value instanceof Raw ? value.text : (toText(value) ?? '');
    if (html && !(value instanceof Raw)) text = escapeHtml(text);
    return singleLine && (text.includes('\n') || text.includes('\r')) ? text.replace(LINE_BREAKS, ' ') : text;
  };
}
