// A content body as a document (GET …/contents/{id}.html and .txt answer text, not the JSON
// envelope the api client reads): the token in its header as every call, '' when none is set (404).
import { ApiError, withQuery } from '../../api';
import { session } from '../../session';

export async function getText(path: string): Promise<string> {
  const token = session()?.token;
  let response: Response;
  try {
    response = await fetch(withQuery(path), { headers: token ? { 'X-Auth-Token': token } : {}, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'NETWORK', 'Herald could not be reached. Check your connection and try again.');
  }
  if (response.status === 404) return '';
  if (!response.ok) throw new ApiError(response.status, 'ERROR', `The body could not be read (HTTP ${response.status}).`);
  return response.text();
}
