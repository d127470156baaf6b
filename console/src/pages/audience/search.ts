// The contacts listing's state in the address (`/console/contacts?q=…&state=…&offset=…`), so a
// search can be bookmarked, shared and kept through a sign-in, and its API query.

export interface ContactSearch {
  q: string; state: string; list: string; interest: string; domain: string; sortby: string; sortdir: string; offset: number;
}

export const PAGE_SIZE = 50;

export function readSearch(query: Record<string, string>): ContactSearch {
  const offset = Number(query.offset);
  return {
    q: query.q ?? '', state: query.state ?? '', list: query.list ?? '', interest: query.interest ?? '', domain: query.domain ?? '',
    sortby: query.sortby === 'quality' ? 'quality' : 'email', sortdir: query.sortdir === 'desc' ? 'desc' : 'asc',
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** The console address's query: only what differs from the defaults. */
export function searchQuery(search: ContactSearch): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) {
    const isDefault = value === '' || value === 0 || (key === 'sortby' && value === 'email') || (key === 'sortdir' && value === 'asc');
    if (!isDefault) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * The API's query: one page (`limit`/`offset`, the API counts the total), the filters, and `q`
 * on the email as a part of it (the API's `q` is a whole-email pattern where `*` matches anything).
 */
export function apiQuery(search: ContactSearch): Record<string, string | number> {
  const q = search.q.trim();
  return {
    limit: PAGE_SIZE,
    offset: search.offset,
    sortby: search.sortby,
    sortdir: search.sortdir,
    ...(q ? { q: q.includes('*') ? q : `*${q}*` } : {}),
    ...(search.state ? { 'filter[state]': search.state } : {}),
    ...(search.list ? { 'filter[list]': search.list } : {}),
    ...(search.interest ? { 'filter[interest]': search.interest } : {}),
    ...(search.domain.trim() ? { 'filter[domain]': search.domain.trim() } : {}),
  };
}
