// The feed's filters as the address keeps them (`type`, `batch`, `email`, `since`, `after`) and
// as the activity API reads them (api/account/activity-query.ts: filters.track_type, filters.batch_id,
// q, filters.timestamp.gtrel or .gt).
import { parseISO } from 'date-fns';
import { accountPath, withQuery } from '../../api';

export interface FeedFilters { type: string; batch: string; email: string; since: string; after: string }

/** The time range choices: relative windows (gtrel), or 'after' a chosen local date and time (gt). */
export const SINCE_OPTIONS = [
  { value: '', label: 'Any time' },
  { value: 'now-1h', label: 'The last hour' },
  { value: 'now-1d', label: 'The last 24 hours' },
  { value: 'now-7d', label: 'The last 7 days' },
  { value: 'now-30d', label: 'The last 30 days' },
  { value: 'after', label: 'After a date and time…' },
];

export const PAGE_SIZE = 25;

export function filtersOf(query: Record<string, string>): FeedFilters {
  const since = SINCE_OPTIONS.some((o) => o.value === query.since) ? query.since : '';
  return { type: query.type ?? '', batch: query.batch ?? '', email: query.email ?? '', since, after: query.after ?? '' };
}

/** The first page's API path; later pages follow the API's own `paging.next`. */
export function firstPagePath(filters: FeedFilters): string {
  const after = filters.since === 'after' && filters.after ? parseISO(filters.after) : undefined;
  return withQuery(accountPath('/activity'), {
    view: 'full',
    limit: PAGE_SIZE,
    'filters.track_type': filters.type,
    'filters.batch_id': filters.batch,
    q: filters.email,
    'filters.timestamp.gtrel': filters.since.startsWith('now-') ? filters.since : undefined,
    'filters.timestamp.gt': after && !Number.isNaN(after.getTime()) ? after.toISOString() : undefined,
  });
}

/** `paging.next` is an absolute link (the API's origin): the console calls its path and query on its own origin. */
export function nextPagePath(next: string | undefined | null): string | null {
  if (!next) return null;
  const url = new URL(next, location.origin);
  return `${url.pathname}${url.search}`;
}
