// A real HTTP receiver for webhook tests: records every request (arrival time, headers, raw body,
// parsed events) and answers with what the test chooses (200 by default).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- events are asserted field by field
type Json = any;

export interface ReceivedRequest {
  /** Arrival, epoch ms with a fraction (when the body was read). */
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  events: Json[];
}

export interface WebhookReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** The status of each answer; may be async (e.g. read another clock). Default 200. */
  answer: (request: ReceivedRequest) => number | Promise<number>;
  /** Events received so far (every request's, in arrival order). */
  events(): Json[];
  waitFor(what: string, done: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    requests,
    answer: () => 200,
    events: () => requests.flatMap((r) => r.events),
    async waitFor(what, done, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`webhook receiver: timed out waiting for ${what} (${requests.length} requests so far)`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let events: Json[] = [];
      try {
        events = JSON.parse(rawBody);
      } catch {
        // recorded as it came; the test sees an empty event list
      }
      const request: ReceivedRequest = { at: performance.timeOrigin + performance.now(), path: req.url ?? '', headers: req.headers, rawBody, events };
      requests.push(request);
      Promise.resolve(receiver.answer(request)).then((status) => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status >= 200 && status < 300 ? 'ok' : 'refused by the test');
      }, () => { res.writeHead(500); res.end(); });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** The most requests whose arrival times fall in any one window of `windowMs` (sliding, not aligned). */
export function maxInAnyWindow(times: number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    while (sorted[end] - sorted[start] >= windowMs) start += 1;
    best = Math.max(best, end - start + 1);
  }
  return best;
}
