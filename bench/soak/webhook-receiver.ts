// The account's webhook endpoint: a local HTTP server that checks each request's signature and
// remembers the track_ids it took, and answers 500 now and then (seeded) so that Herald's retries
// and discards get their share of the run.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookReceiver {
  url: string;
  /** Set once the endpoint is created (the secret comes in the answer). */
  setSecret(secret: string): void;
  /** track_ids of the events in requests answered 2xx. */
  received: Set<string>;
  /** Events received again after a 2xx (at-least-once: allowed, counted). */
  repeats: number;
  requests: number;
  refused: number;
  badSignatures: number;
  close(): Promise<void>;
}

export function verifySignature(secret: string, raw: Buffer, header: string | undefined): boolean {
  const parts = Object.fromEntries(String(header ?? '').split(',').map((p) => p.trim().split('=', 2)));
  const expected = crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${parts.t}.`).update(raw).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

export async function startWebhookReceiver(random: () => number, failShare: number): Promise<WebhookReceiver> {
  let secret = '';
  const receiver: WebhookReceiver = {
    url: '', setSecret: (s) => { secret = s; }, received: new Set(), repeats: 0, requests: 0, refused: 0, badSignatures: 0, close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.requests += 1;
      const raw = Buffer.concat(chunks);
      if (!verifySignature(secret, raw, req.headers['herald-signature'] as string | undefined)) {
        receiver.badSignatures += 1;
        res.writeHead(401).end();
        return;
      }
      if (random() < failShare) {
        receiver.refused += 1;
        res.writeHead(500, { 'content-type': 'text/plain' }).end('soak: failing on purpose');
        return;
      }
      for (const event of JSON.parse(raw.toString('utf8')) as Array<{ track_id: string }>) {
        if (receiver.received.has(event.track_id)) receiver.repeats += 1;
        else receiver.received.add(event.track_id);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return receiver;
}
