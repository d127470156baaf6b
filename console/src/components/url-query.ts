// A page's filters kept in the address's query string, so a reload or a shared link shows the
// same view. preact-iso parses the query; changing it replaces the history entry's address.
import { useLocation } from 'preact-iso';
import { withQuery } from '../api';

export function useUrlQuery(): [Record<string, string>, (next: Record<string, string | undefined>) => void] {
  const { path, query, route } = useLocation();
  const set = (next: Record<string, string | undefined>) => route(withQuery(path, next), true);
  return [query, set];
}
