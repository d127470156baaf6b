// The two busiest requests, GET /t/o/{token} (open pixel) and GET /t/c/{token} (click), served
// on Node's own request handler, before Koa: Koa and the shared middleware (request id, access
// log, error boundary, router matching) cost about a third of a hit's CPU, and a mail's readers
// make far more hits than clients make API calls. Only a valid hit takes this path, with the
// same recorder, the same answer and the same metrics as its Koa route (api/tracking/router.ts);
// anything else (a token that does not verify, a store failure, another method) goes on to the
// Koa app, which answers it as it answers every request: a hit whose recording failed is handed
// over with its identity, so that Koa's second attempt cannot count it twice (./hit-identity.ts).
// Hits are counted, not logged one by one.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { ObjectId } from 'mongodb';
import { metrics } from '../../adapters/metrics/registry';
import { trackingRecorderOf, type Hit } from '../../core/tracking/recorder';
import type { Store } from '../../adapters/store/store';
import { handOver } from './hit-identity';
import { NO_STORE, PIXEL, REDIRECTABLE, type TrackingSettings } from './router';

const PIXEL_HEADERS = { ...NO_STORE, 'Content-Type': 'image/gif', 'Content-Length': String(PIXEL.length) };
const REDIRECT_HEADERS = { ...NO_STORE, 'Content-Length': '0' };
/** A token as Herald writes them: base64url parts and dots, nothing to decode. */
const TOKEN = /^[A-Za-z0-9_.-]+$/;

/** `koa` (the app's callback) with the open and click hits answered ahead of it. */
export function withTrackingFastPath(deps: { store: Store; settings: TrackingSettings }, koa: RequestListener): RequestListener {
  const recorder = trackingRecorderOf(deps.store);
  const { trustProxy } = deps.settings;
  const counted = (route: string, status: string) => ({
    requests: metrics.httpRequests.labels({ route, method: 'GET', status }),
    duration: metrics.httpDuration.labels({ route, method: 'GET', status }),
  });
  const opens = counted('/t/o/:token', '200');
  const clicks = counted('/t/c/:token', '302');

  function clientOf(req: IncomingMessage): Hit {
    const forwarded = trustProxy ? req.headers['x-forwarded-for'] : undefined;
    // Behind a proxy, the last entry is the one it added (as Koa's app.proxy with maxIpsCount 1 reads it).
    const ip = typeof forwarded === 'string' && forwarded !== '' ? forwarded.slice(forwarded.lastIndexOf(',') + 1).trim() : req.socket.remoteAddress ?? '';
    return { userAgent: req.headers['user-agent'] ?? '', ip };
  }

  async function serve(req: IncomingMessage, res: ServerResponse, kind: 'o' | 'c', token: string, id: ObjectId): Promise<boolean> {
    const started = performance.now();
    if (kind === 'o') {
      const resolved = await recorder.resolveMessage('o', token);
      if (!resolved) return false;
      await recorder.open(resolved, clientOf(req), id);
      res.writeHead(200, PIXEL_HEADERS).end(PIXEL);
      opens.requests.inc();
      opens.duration.observe((performance.now() - started) / 1000);
      return true;
    }
    const resolved = await recorder.resolveClick(token);
    if (!resolved || !REDIRECTABLE.test(resolved.payload.link.target)) return false;
    await recorder.click(resolved, clientOf(req), id);
    res.writeHead(302, { ...REDIRECT_HEADERS, Location: resolved.payload.link.target }).end();
    clicks.requests.inc();
    clicks.duration.observe((performance.now() - started) / 1000);
    return true;
  }

  return (req, res) => {
    const url = req.url ?? '';
    const kind = req.method === 'GET' && url.startsWith('/t/') && url[4] === '/' ? url[3] : undefined;
    const end = url.indexOf('?');
    const token = url.slice(5, end < 0 ? undefined : end);
    if ((kind !== 'o' && kind !== 'c') || !TOKEN.test(token)) {
      koa(req, res);
      return;
    }
    const id = new ObjectId();
    serve(req, res, kind, token, id).then((served) => served || koa(req, res), () => {
      handOver(req, id);
      koa(req, res);
    });
  };
}
