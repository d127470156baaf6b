// The activity listing's query string, as the original's clients write it: `filters.track_type`
// with literal dots (the spec's form), or `filters[track_type]` / `filters[timestamp][gt]` (what
// form libraries send); both read the same. Every problem is reported at once, as a
// VALIDATION_ERROR naming the parameter.
import type { Context } from 'koa';
import qs from 'qs';
import { ACTIVITY_VIEWS, type ActivityRequest, type ActivityView } from '../../core/tracking/activity';
import { TRACK_TYPES } from '../../core/tracking/events';
import { errors, fieldError, type FieldError } from '../../core/shared/errors';
import type { TrackType } from '../../core/tracking/events';
import { MAX_LIMIT, wildcardPattern } from './list-options';

export const ACTIVITY_DEFAULT_LIMIT = 20;

/** Units of `filters.timestamp.gtrel` (`now-<n><unit>`), in milliseconds. */
export const RELATIVE_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** How far back gtrel may reach: beyond ten years it is a typo, not a query. */
const MAX_RELATIVE_MS = 3650 * 86_400_000;

const FILTERS = ['filters.track_type', 'filters.batch_id', 'filters.timestamp.gt', 'filters.timestamp.gtrel'];

/** The parsed request, and the query its `next` link carries (filters resolved: gtrel as the absolute gt it meant). */
export interface ParsedActivityQuery { request: ActivityRequest; linkQuery: Record<string, string> }

export function parseActivityQuery(ctx: Context, now = new Date()): ParsedActivityQuery {
  const params = flatParams(ctx.querystring);
  const problems: Record<string, FieldError> = {};
  const bad = (field: string, message: string) => { problems[field] ??= fieldError('invalid_value', message); };
  const single = (name: string): string | undefined => {
    const value = params.get(name);
    if (value === undefined) return undefined;
    if (value.length > 1) { bad(name, 'Give it once'); return undefined; }
    return value[0] === '' ? undefined : value[0];
  };

  for (const name of params.keys()) {
    if (name.startsWith('filters.') && !FILTERS.includes(name)) bad(name.slice(0, 60), `Unknown filter; known: ${FILTERS.join(', ')}`);
  }

  const trackTypeText = single('filters.track_type');
  const trackType = TRACK_TYPES.find((type) => type === trackTypeText);
  if (trackTypeText !== undefined && !trackType) bad('filters.track_type', `Must be one of: ${TRACK_TYPES.join(', ')}`);

  const batchId = single('filters.batch_id');
  if (batchId !== undefined && batchId.length > 200) bad('filters.batch_id', 'Must be at most 200 characters');

  const gtText = single('filters.timestamp.gt');
  const gtrelText = single('filters.timestamp.gtrel');
  let since: Date | undefined;
  if (gtText !== undefined && gtrelText !== undefined) {
    bad('filters.timestamp.gt', 'Give filters.timestamp.gt or filters.timestamp.gtrel, not both');
    bad('filters.timestamp.gtrel', 'Give filters.timestamp.gt or filters.timestamp.gtrel, not both');
  } else if (gtText !== undefined) {
    since = parseTimestamp(gtText);
    if (!since) bad('filters.timestamp.gt', 'Must be an ISO 8601 date and time with Z or an offset, e.g. 2026-03-01T08:00:00Z');
  } else if (gtrelText !== undefined) {
    const ms = parseRelative(gtrelText);
    if (ms === undefined) bad('filters.timestamp.gtrel', 'Must be now-<number><unit>, unit s, m, h, d or w (e.g. now-1h, now-5d), at most ten years');
    else since = new Date(now.getTime() - ms);
  }

  const viewText = single('view');
  const view = ACTIVITY_VIEWS.find((v) => v === viewText) ?? (viewText === undefined ? 'default' : undefined);
  if (!view) bad('view', `Must be one of: ${ACTIVITY_VIEWS.join(', ')}`);

  const q = single('q');
  if (q !== undefined && q.length > 200) bad('q', 'Must be an email address of at most 200 characters');

  const limitText = single('limit');
  const limit = limitText === undefined ? ACTIVITY_DEFAULT_LIMIT : /^\d{1,4}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) bad('limit', `Must be an integer from 1 to ${MAX_LIMIT}`);

  const cursor = single('cursor');
  if (Object.keys(problems).length > 0) throw errors.validation(problems);

  const linkQuery: Record<string, string> = {
    ...(trackType ? { 'filters.track_type': trackType } : {}),
    ...(batchId !== undefined ? { 'filters.batch_id': batchId } : {}),
    ...(since ? { 'filters.timestamp.gt': since.toISOString() } : {}),
    ...(q !== undefined ? { q } : {}),
    ...(viewText !== undefined ? { view: viewText } : {}),
    limit: String(limit),
  };
  return {
    request: {
      filters: { trackType: trackType as TrackType | undefined, batchId, since, email: q !== undefined ? wildcardPattern(q) : undefined },
      view: view as ActivityView,
      limit,
      cursor,
    },
    linkQuery,
  };
}

/**
 * The query's parameters by their dotted names, each with every value given: `filters[a][b]`,
 * `filters[a.b]` and `filters.a.b` all become `filters.a.b`.
 */
function flatParams(querystring: string): Map<string, string[]> {
  let parsed: Record<string, unknown>;
  try {
    parsed = qs.parse(querystring, { depth: 3, parameterLimit: 100, arrayLimit: 20, throwOnLimitExceeded: true, strictDepth: true });
  } catch (error) {
    if (error instanceof RangeError) throw errors.badRequest(`Query string refused: ${error.message}`);
    throw error;
  }
  const params = new Map<string, string[]>();
  const add = (name: string, value: unknown) => {
    if (typeof value === 'string') params.set(name, [...(params.get(name) ?? []), value]);
    else if (Array.isArray(value)) value.forEach((item) => add(name, item));
    else if (typeof value === 'object' && value !== null) for (const [key, inner] of Object.entries(value)) add(`${name}.${key}`, inner);
  };
  for (const [name, value] of Object.entries(parsed)) add(name, value);
  return params;
}

/**
 * ISO 8601 date and time with a zone (`Z`, `+02:00`, `+0200`); seconds and fractions optional.
 * A space before the offset is read as `+`: an unencoded `+` in a query string arrives as one.
 */
export function parseTimestamp(text: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([ +-])(\d{2}):?(\d{2}))$/i.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s = '0', fraction = '', zulu, sign, oh, om] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (!zulu) {
    if (Number(oh) > 23 || Number(om) > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  }
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000);
}

/** `now-<n><unit>` → milliseconds back from now; undefined when malformed or beyond ten years. */
export function parseRelative(text: string): number | undefined {
  const match = /^now-(\d{1,9})([smhdw])$/.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]) * RELATIVE_UNITS[match[2]];
  return ms <= MAX_RELATIVE_MS ? ms : undefined;
}
