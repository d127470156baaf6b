// One webhook request: a JSON array of events, signed, POSTed with a time limit. Connections are
// kept alive and reused (one agent per scheme for the whole worker); each new connection goes
// through guardedLookup, so it only ever reaches an address the URL policy allows.
import http from 'node:http';
import https from 'node:https';
import { metrics } from '../../adapters/metrics/registry';
import { SIGNATURE_HEADER, signatureHeader } from './signature';
import { guardedLookup, isPrivateAddress, literalAddress, PrivateAddressError } from './url-policy';

/** A POST not answered within this is a failure (retried once, like a non-2xx answer). */
export const REQUEST_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'Herald-Webhooks/1.0 (+https://github.com/herald)';
/** Bytes of an answer's body read at most (for the error message); the rest is drained. */
const ANSWER_SNIPPET_BYTES = 200;

export interface PostResult {
  /** delivered: 2xx; rejected: another status; failed: no answer in time, or no connection. */
  outcome: 'delivered' | 'rejected' | 'failed';
  status: number | null;
  /** What went wrong, in words (the start of the answer's body for a rejection). */
  error: string | null;
}

export interface Poster {
  post(target: { url: string; secret: string }, body: string, extraHeaders?: Record<string, string>): Promise<PostResult>;
  close(): void;
}

/** A poster for one worker: keep-alive agents whose connections check the address they use. */
export function createPoster(options: { allowPrivate: boolean; timeoutMs?: number }): Poster {
  const lookup = guardedLookup(options.allowPrivate);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 32 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 32 }),
  };
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;

  const post = (target: { url: string; secret: string }, body: string, extraHeaders: Record<string, string> = {}): Promise<PostResult> => {
    const url = new URL(target.url);
    const literal = literalAddress(url);
    if (!options.allowPrivate && literal !== undefined && isPrivateAddress(literal)) {
      return Promise.resolve(counted({ outcome: 'failed', status: null, error: new PrivateAddressError(literal).message }));
    }
    const payload = Buffer.from(body, 'utf8');
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<PostResult>((resolve) => {
      let settled = false;
      const finish = (result: PostResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(counted(result));
      };
      const request = client.request(url, {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        lookup,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': String(payload.length),
          'User-Agent': USER_AGENT,
          [SIGNATURE_HEADER]: signatureHeader(target.secret, payload),
          ...extraHeaders,
        },
      }, (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < ANSWER_SNIPPET_BYTES) { chunks.push(chunk); kept += chunk.length; }
        });
        response.on('end', () => {
          if (status >= 200 && status < 300) return finish({ outcome: 'delivered', status, error: null });
          const snippet = Buffer.concat(chunks).subarray(0, ANSWER_SNIPPET_BYTES).toString('utf8').replace(/\s+/g, ' ').trim();
          finish({ outcome: 'rejected', status, error: `HTTP ${status}${snippet ? `: ${snippet}` : ''}` });
        });
        response.on('error', (error) => finish({ outcome: 'failed', status, error: error.message }));
      });
      const timer = setTimeout(() => {
        request.destroy();
        finish({ outcome: 'failed', status: null, error: `no answer within ${timeoutMs / 1000} s` });
      }, timeoutMs);
      request.on('error', (error) => finish({ outcome: 'failed', status: null, error: error.message }));
      request.end(payload);
    });
  };

  return {
    post,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function counted(result: PostResult): PostResult {
  metrics.webhookRequests.inc({ outcome: result.outcome });
  return result;
}
