import type { Context } from 'koa';
import qs from 'qs';
import { errors, fieldError, type FieldError } from '../../core/shared/errors';

/** What a resource's list accepts. Sort and filter names outside these never reach the store. */
export interface ListSpec {
  /** Sort fields, the default first. */
  sortFields: string[];
  defaultDir: 'asc' | 'desc';
  defaultLimit: number;
  /** Filter names and how each value is checked and converted (throw a message when invalid). */
  filters?: Record<string, (value: string) => unknown>;
  /**
   * Filters that take several values: `filter[x]=a,b`, `filter[x][]=a&filter[x][]=b` or the key
   * repeated all reach the check as one comma-separated string.
   */
  multiValueFilters?: string[];
  /** Filters the original's clients also send without `filter[...]` (contacts: `state`). */
  unprefixedFilters?: string[];
  /** What each filter's value is, for the OpenAPI document. */
  filterDescriptions?: Record<string, string>;
}

export interface ListOptions {
  offset: number;
  limit: number;
  sortby: string;
  sortdir: 'asc' | 'desc';
  filters: Record<string, unknown>;
  /** `q` as a MongoDB condition: an anchored, case-blind pattern where `*` matches anything; undefined when absent. */
  q?: { $regex: string; $options: 'i' };
  /** `q` as given (searches that are no name pattern: a campaign's actions by email). */
  qText?: string;
}

/** Enough for the original's clients, which ask for 1000 at once. */
export const MAX_LIMIT = 1000;

/** A `filter[…]` of yes or no: `true`/`1` or `false`/`0`, in any case. */
export function booleanFilter(value: string): boolean {
  const text = value.trim().toLowerCase();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new Error('Must be true or false');
}

/**
 * Reads the listing options of the query string as the original's clients send them:
 * `sortby`/`sortBy`/`SORTBY` (any letter case), `sortdir` asc/desc in any case, `filter[x]`
 * (and `x` alone for the filters that allow it), `limit` up to 1000, `offset`, `q` with `*`.
 */
export function parseListOptions(ctx: Context, spec: ListSpec): ListOptions {
  let raw: Record<string, unknown>;
  try {
    // Names are only ever compared with the spec's lists, so `filter[$where]` is just an unknown filter.
    raw = qs.parse(ctx.querystring, { depth: 2, parameterLimit: 100, arrayLimit: 20, throwOnLimitExceeded: true, strictDepth: true });
  } catch (error) {
    if (error instanceof RangeError) throw errors.badRequest(`Query string refused: ${error.message}`);
    throw error;
  }
  const params = new Map(Object.entries(raw).map(([k, v]) => [k.toLowerCase(), v]));
  const problems: Record<string, FieldError> = {};
  const bad = (field: string, message: string) => { problems[field] ??= fieldError('invalid_value', message); };

  const integer = (name: string, fallback: number, min: number, max: number) => {
    const value = params.get(name);
    if (value === undefined || value === '') return fallback;
    const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
    if (!(n >= min && n <= max)) bad(name, `Must be an integer from ${min} to ${max}`);
    return Number.isNaN(n) ? fallback : n;
  };
  const limit = integer('limit', spec.defaultLimit, 1, MAX_LIMIT);
  const offset = integer('offset', 0, 0, Number.MAX_SAFE_INTEGER);

  const sortParam = params.get('sortby');
  const sortby = sortParam === undefined || sortParam === ''
    ? spec.sortFields[0]
    : spec.sortFields.find((f) => typeof sortParam === 'string' && f.toLowerCase() === sortParam.toLowerCase());
  if (!sortby) bad('sortby', `Must be one of: ${spec.sortFields.join(', ')}`);
  const dirParam = params.get('sortdir');
  const sortdir = dirParam === undefined || dirParam === '' ? spec.defaultDir : String(dirParam).toLowerCase();
  if (sortdir !== 'asc' && sortdir !== 'desc') bad('sortdir', 'Must be asc or desc');

  const filters: Record<string, unknown> = {};
  const given: Array<[string, unknown]> = [];
  const filterParam = params.get('filter');
  if (filterParam !== undefined && filterParam !== '') {
    if (typeof filterParam !== 'object' || filterParam === null || Array.isArray(filterParam)) bad('filter', 'Use filter[name]=value');
    else given.push(...Object.entries(filterParam));
  }
  for (const name of spec.unprefixedFilters ?? []) if (params.has(name)) given.push([name, params.get(name)]);
  for (const [name, value] of given) {
    const check = spec.filters?.[name];
    if (!check) {
      bad(`filter[${name.slice(0, 50)}]`, `Unknown filter; known: ${Object.keys(spec.filters ?? {}).join(', ') || 'none'}`);
    } else if (Array.isArray(value) && spec.multiValueFilters?.includes(name) && value.every((v) => typeof v === 'string')) {
      try {
        filters[name] = check(value.join(','));
      } catch (error) {
        bad(`filter[${name}]`, (error as Error).message);
      }
    } else if (typeof value !== 'string') {
      bad(`filter[${name}]`, 'Must be a single value');
    } else {
      try {
        filters[name] = check(value);
      } catch (error) {
        bad(`filter[${name}]`, (error as Error).message);
      }
    }
  }

  const q = params.get('q');
  if (q !== undefined && (typeof q !== 'string' || q.length > 200)) bad('q', 'Must be a text of at most 200 characters');
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  return {
    offset, limit, sortby: sortby!, sortdir: sortdir as 'asc' | 'desc', filters,
    q: typeof q === 'string' && q !== '' ? wildcardPattern(q) : undefined,
    ...(typeof q === 'string' && q !== '' ? { qText: q } : {}),
  };
}

/**
 * `*` matches anything, everything else literally; runs of `*` collapse (no costly patterns).
 * The string form of $regex: the embedded store misreads a BSON regex inside $regex.
 */
export function wildcardPattern(q: string): { $regex: string; $options: 'i' } {
  const body = q.replace(/\*+/g, '*').split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return { $regex: `^${body}$`, $options: 'i' };
}
