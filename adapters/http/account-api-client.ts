// A client of the original's account API (`/v2`), as any server that speaks it answers: a
// migration's source (core/migration/). Gentle with the source: requests keep to a rate
// (requests per second on average, a second's worth at once), a 429 or a 5xx (or a dropped connection) is tried again after a backoff
// that honours Retry-After, and 401/403 stop at once with what the source said. Reads the
// documented envelope (`{href|url, success, data, paging, task}`) and nothing else.

import { RateLimit } from '../relay/rate-limit';

/** Why a call to the source failed for good. */
export type SourceFailure = 'unreachable' | 'unauthorized' | 'forbidden' | 'not_found' | 'refused' | 'unavailable';

export class SourceApiError extends Error {
  constructor(message: string, readonly failure: SourceFailure, readonly status?: number) {
    super(message);
    this.name = 'SourceApiError';
  }
}

export interface Envelope<T = unknown> {
  success?: boolean;
  data?: T;
  paging?: { offset?: number; limit?: number; results?: number; total?: number };
  /** The order a listing used, as the source echoes it (either spelling: the original's samples show both). */
  sort?: { sortby?: string; sortdir?: string; sortBy?: string; sortDir?: string };
  task?: { id: number; state?: string; result?: unknown; message?: string };
  error?: { status?: number; type?: string; userMessage?: string };
}

export interface AccountApiClientOptions {
  /** The server's base URL, with or without `/v2` (e.g. `https://api.example.com`). */
  baseUrl: string;
  account: string;
  apiKey: string;
  /** Requests started per second at most, on average (default 10); up to a second's worth at once. */
  requestsPerSecond?: number;
  /** Tries of one request before a 429/5xx/network failure is final (default 8). */
  attempts?: number;
  /** The first backoff; doubled on each retry, at most 30 s (default 500 ms). */
  backoffMs?: number;
  /** A request's time limit (default 60 s). */
  timeoutMs?: number;
  /** Called before each retry: the migration's progress shows the source slowing it. */
  onRetry?: (info: { path: string; status?: number; delayMs: number; attempt: number }) => void;
}

const MAX_BACKOFF_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `/v2` root of a base URL given with or without it, without a trailing slash. */
export function apiRootOf(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new SourceApiError(`Not a URL: ${baseUrl}`, 'unreachable');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceApiError(`Not an http(s) URL: ${baseUrl}`, 'unreachable');
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/v2') ? path : `${path}/v2`;
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/+$/, '');
}

export class AccountApiClient {
  readonly root: string;
  private readonly rate: RateLimit;
  /** The source answered once: a dropped connection later is worth retrying, an unreachable URL at the start is not. */
  private answered = false;

  constructor(private readonly options: AccountApiClientOptions) {
    this.root = apiRootOf(options.baseUrl);
    this.rate = new RateLimit(Math.max(0.1, options.requestsPerSecond ?? 10), undefined, 1);
  }

  /** A path under the account (`contacts`, `lists/3`) or, starting with `/`, under the root (`/login`). */
  private urlOf(path: string, query: Record<string, string | number> = {}): string {
    const url = new URL(`${this.root}${path.startsWith('/') ? path : `/${encodeURIComponent(this.options.account)}/${path}`}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
    return url.toString();
  }

  /** One call, retried on 429, 5xx and network failures; resolves with the response once it is 2xx. */
  private async call(method: string, path: string, query?: Record<string, string | number>, body?: unknown): Promise<Response> {
    const url = this.urlOf(path, query);
    const attempts = this.options.attempts ?? 8;
    let delay = this.options.backoffMs ?? 500;
    for (let attempt = 1; ; attempt += 1) {
      await this.rate.take();
      let response: Response | undefined;
      let networkError: Error | undefined;
      try {
        response = await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${this.options.apiKey}`,
            accept: 'application/json',
            'user-agent': 'herald-migrate',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
        });
      } catch (error) {
        networkError = error as Error;
      }
      if (response) this.answered = true;
      if (response && response.ok) return response;
      const status = response?.status;
      const retryable = response ? status === 429 || (status !== undefined && status >= 500) : this.answered;
      if (!retryable || attempt >= attempts) {
        const said = response ? await messageOf(response) : networkError?.message ?? 'no answer';
        throw failureOf(method, path, status, said);
      }
      await response?.body?.cancel().catch(() => undefined);
      const wait = Math.min(MAX_BACKOFF_MS, Math.max(delay, retryAfterMs(response) ?? 0));
      this.options.onRetry?.({ path, status, delayMs: wait, attempt });
      await sleep(wait);
      delay = Math.min(MAX_BACKOFF_MS, delay * 2);
    }
  }

  async get<T>(path: string, query?: Record<string, string | number>): Promise<Envelope<T>> {
    return (await this.call('GET', path, query)).json() as Promise<Envelope<T>>;
  }

  async post<T>(path: string, body: unknown): Promise<Envelope<T>> {
    return (await this.call('POST', path, undefined, body)).json() as Promise<Envelope<T>>;
  }

  /**
   * The key's permissions at the source, after checking that the source answers and knows the key
   * (its account information: 401 there is a refused key). Read from `POST /login` with the key
   * alone (its `acl` for the account); undefined when the source does not log in that way.
   */
  async permissions(): Promise<string[] | undefined> {
    await this.get(`/${encodeURIComponent(this.options.account)}`);
    try {
      const login = await this.post<{ acl?: Record<string, unknown> }>('/login', { apikey: this.options.apiKey });
      const granted = login.data?.acl?.[this.options.account];
      return Array.isArray(granted) ? granted.map(String) : undefined;
    } catch (error) {
      if (error instanceof SourceApiError && error.failure !== 'unreachable' && error.failure !== 'unavailable') return undefined;
      throw error;
    }
  }

  /** A file's bytes (an export's CSV). */
  async download(path: string): Promise<Buffer> {
    return Buffer.from(await (await this.call('GET', path)).arrayBuffer());
  }

  /**
   * Every element of a listing, a page at a time, in `sortby` order (ascending): offset paging, as
   * the API documents it. The source's total is read from each page. `overlap`: each page starts
   * that many elements before the previous one ended, so elements deleted at the source meanwhile
   * (which shift the rest back) skip nothing; the caller drops the repeats.
   */
  async *pages<T>(namespace: string, options: { pageSize?: number; sortby?: string; query?: Record<string, string>; overlap?: number } = {}): AsyncGenerator<{ items: T[]; total?: number }> {
    const limit = options.pageSize ?? 1000;
    const step = limit - Math.min(options.overlap ?? 0, limit - 1);
    for (let offset = 0; ; offset += step) {
      const page = await this.get<T[]>(namespace, { ...options.query, offset, limit, ...(options.sortby ? { sortby: options.sortby, sortdir: 'asc' } : {}) });
      const items = Array.isArray(page.data) ? page.data : [];
      yield { items, total: page.paging?.total };
      if (items.length < limit) return;
    }
  }
}

function retryAfterMs(response: Response | undefined): number | undefined {
  const header = response?.headers.get('retry-after');
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

async function messageOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Envelope;
    return body.error?.userMessage ?? body.error?.type ?? `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
  }
}

function failureOf(method: string, path: string, status: number | undefined, said: string): SourceApiError {
  const where = `${method} ${path}`;
  if (status === undefined) return new SourceApiError(`The source did not answer ${where}: ${said}`, 'unreachable');
  if (status === 401) return new SourceApiError(`The source refused the key (401 on ${where}): ${said}`, 'unauthorized', status);
  if (status === 403) return new SourceApiError(`The key may not do ${where} (403): ${said}`, 'forbidden', status);
  if (status === 404) return new SourceApiError(`The source has no ${path} (404): ${said}`, 'not_found', status);
  if (status === 429 || status >= 500) return new SourceApiError(`The source kept answering ${status} to ${where}: ${said}`, 'unavailable', status);
  return new SourceApiError(`The source answered ${status} to ${where}: ${said}`, 'refused', status);
}
