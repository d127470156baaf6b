// The built-ins (`value?name` / `value?name(args)`). Each is made once per use in a template, with
// its literal arguments checked then; at render time a built-in never throws: on a missing value,
// or one it cannot apply to, it yields undefined (rendered empty, or replaced by a `!` default).
import { Problem } from './error';
import type { Literal } from './expr';
import { compileDatePattern, compileNumberPattern, isDatePattern } from './format';
import type { LoopState } from './eval';
import { DateValue, Raw, escapeHtml, hasContent, toMillis, toNumber, toText, type DateKind } from './values';

export type Apply = (value: unknown) => unknown;

const onText = (f: (text: string) => unknown): Apply => (v) => {
  const text = toText(v);
  return text === undefined ? undefined : f(text);
};
const onNumber = (f: (n: number) => unknown): Apply => (v) => {
  const n = toNumber(v);
  return n === undefined ? undefined : f(n);
};
const onDate = (f: (ms: number) => unknown): Apply => (v) => {
  const ms = toMillis(v);
  return ms === undefined ? undefined : f(ms);
};
const toDate = (kind: DateKind) => onDate((ms) => new DateValue(ms, kind));

// Built-ins without arguments.
const SIMPLE = new Map<string, Apply>([
  ['upper_case', onText((s) => s.toUpperCase())],
  ['lower_case', onText((s) => s.toLowerCase())],
  ['cap_first', onText((s) => s.replace(/^(\s*)(.)/su, (_, space: string, first: string) => space + first.toUpperCase()))],
  ['uncap_first', onText((s) => s.replace(/^(\s*)(.)/su, (_, space: string, first: string) => space + first.toLowerCase()))],
  ['trim', onText((s) => s.trim())],
  ['length', onText((s) => s.length)],
  ['html', onText((s) => new Raw(escapeHtml(s)))],
  // toWellFormed: a lone surrogate would make encodeURIComponent throw.
  ['url', onText((s) => encodeURIComponent(s.toWellFormed()))],
  ['no_esc', onText((s) => new Raw(s))],
  ['c', (v) => (v instanceof DateValue ? new Date(v.ms).toISOString() : toText(v))],
  ['round', onNumber(Math.round)],
  ['floor', onNumber(Math.floor)],
  ['ceiling', onNumber(Math.ceil)],
  ['date', toDate('date')],
  ['datetime', toDate('datetime')],
  ['time', toDate('time')],
  ['size', (v) => (Array.isArray(v) ? v.length : undefined)],
  ['has_content', hasContent],
]);

/** ?string, ?string("pattern") (a date or a number pattern), ?string("yes", "no") for booleans. */
function stringBuiltin(args: readonly Literal[]): Apply {
  if (args.some((a) => typeof a !== 'string')) throw new Problem('?string takes quoted text arguments');
  const [pattern, otherwise] = args as string[];
  if (args.length === 0) return onText((s) => s);
  if (args.length === 2) return (v) => (typeof v === 'boolean' ? (v ? pattern : otherwise) : undefined);
  if (isDatePattern(pattern)) return onDate(compileDatePattern(pattern));
  return onNumber(compileNumberPattern(pattern));
}

/** The built-in `name` with its arguments, or a Problem naming what is wrong. */
export function builtin(name: string, args: readonly Literal[]): Apply {
  const simple = SIMPLE.get(name);
  if (simple) {
    if (args.length > 0) throw new Problem(`?${name} takes no arguments`);
    return simple;
  }
  if (name === 'string') {
    if (args.length > 2) throw new Problem('?string takes at most 2 arguments');
    return stringBuiltin(args);
  }
  if (LOOP_BUILTINS.has(name)) throw new Problem(`?${name} applies only to the variable of an enclosing [#list]`);
  throw new Problem(`Unknown built-in ?${name}`);
}

/** Built-ins of a [#list] loop variable: they read the loop, not the item. */
export const LOOP_BUILTINS = new Map<string, (loop: LoopState) => unknown>([
  ['index', (l) => l.index],
  ['counter', (l) => l.index + 1],
  ['has_next', (l) => l.index < l.length - 1],
  ['is_first', (l) => l.index === 0],
  ['is_last', (l) => l.index === l.length - 1],
]);
