// The console's only way to the server: Herald's own /v2 API, with the session's token in the
// X-Auth-Token header. Every action a page takes is one of these calls, which a script could
// make with the same permissions.
import { session, setSession } from './session';

/** An API error as the envelope gives it: the message to show, and per-field messages. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly fields: Record<string, string> = {},
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The envelope of a successful answer. */
export interface Envelope<T> {
  data: T;
  paging?: { offset?: number; limit?: number; results: number; total: number; next?: string };
  task?: { id: string | number; [key: string]: unknown };
}

/** Where a 401 sends the person: the sign-in page, with where they were kept in the address. */
let onExpired: (next: string) => void = (next) => {
  location.assign(`/console/signin?next=${encodeURIComponent(next)}`);
};
export function handleExpiredSession(handler: (next: string) => void): void {
  onExpired = handler;
}

type Query = Record<string, string | number | boolean | undefined | null>;

/** A path under /v2/{account}: `accountPath('/lists')`. */
export function accountPath(path: string): string {
  const s = session();
  if (!s) throw new ApiError(401, 'UNAUTHORIZED', 'Not signed in');
  return `/v2/${encodeURIComponent(s.account)}${path}`;
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}${path.includes('?') ? '&' : '?'}${text}` : path;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Query;
  /** A raw body (a CSV file) with its content type, instead of JSON; no type for FormData (the browser sets it, with the boundary). */
  raw?: { body: BodyInit; contentType?: string };
}

/** Calls the API; resolves to the envelope, or throws an ApiError with the API's message. */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<Envelope<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = session()?.token;
  if (token) headers['X-Auth-Token'] = token;
  let body: BodyInit | undefined;
  if (options.raw) {
    if (options.raw.contentType) headers['Content-Type'] = options.raw.contentType;
    body = options.raw.body;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), { method: options.method ?? 'GET', headers, body, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'NETWORK', 'Herald could not be reached. Check your connection and try again.');
  }
  const text = await response.text();
  let json: { success?: boolean; data?: unknown; error?: { type?: string; userMessage?: string; message?: string; validationErrors?: Record<string, string>; data?: unknown } } = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    // not JSON (a proxy's error page): handled below by the status
  }
  if (!response.ok || json.success === false) {
    const error = json.error ?? {};
    const message = error.userMessage ?? error.message ?? `The request failed (HTTP ${response.status}).`;
    // The first call to find the session ended sends the person to sign in; calls answered
    // after it (the session is already cleared) must not redirect again from the sign-in page.
    if (response.status === 401 && token && session()?.token === token && !path.endsWith('/login')) {
      setSession(null, 'expired');
      onExpired(location.pathname + location.search);
    }
    throw new ApiError(response.status, error.type ?? 'ERROR', message, error.validationErrors ?? {}, error.data);
  }
  return json as Envelope<T>;
}

export const api = {
  get: <T>(path: string, query?: Query) => request<T>(path, { query }),
  post: <T>(path: string, body?: unknown) => request<T>(path, { method: 'POST', body: body ?? {} }),
  put: <T>(path: string, body?: unknown) => request<T>(path, { method: 'PUT', body: body ?? {} }),
  patch: <T>(path: string, body?: unknown) => request<T>(path, { method: 'PATCH', body: body ?? {} }),
  delete: <T>(path: string) => request<T>(path, { method: 'DELETE' }),
};

/** The message to show for anything thrown: an API error's own, never a stack. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong in the console. Reload the page and try again.';
}
