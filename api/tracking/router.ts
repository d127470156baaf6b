// The tracking links of sent mail, public (the token is the credential): `/t/o/` open pixel,
// `/t/c/` click redirect, `/t/v/` online version, `/t/s/{network}/` share, `/t/u/` unsubscribe
// page and RFC 8058 one-click. A token is verified without a lookup (its HMAC), then its message
// is found in the send ledger (cached), or, while its send is not recorded yet, in its stored
// request; a token that is malformed, forged, altered, of another kind, or of a message never
// sent is the same 404, which names nothing. Each answer is given only once the hit's events
// are stored, or the hit is held for them (core/tracking/recorder.ts).
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { errors } from '../../core/shared/errors';
import { toAppError } from '../../core/shared/faults';
import type { Store } from '../../adapters/store/store';
import { onlineVersion } from '../../core/tracking/online-version';
import { trackingRecorderOf, type Hit, type Resolved } from '../../core/tracking/recorder';
import { isShareNetwork, sharePage } from '../../core/tracking/share-networks';
import { DEFAULT_REASON } from '../../core/tracking/unsubscribe';
import { trackingSecret } from '../../core/content/tracking/secret';
import { messagePart, messageToken, type MessageKind, type TrackingPayload } from '../../core/content/tracking/token';
import { errorPage, sendPage, unsubscribedPage, unsubscribePage } from './pages';
import { httpHeadersOf, httpStatusOf } from '../http-errors';
import { readUnsubscribeBody } from './unsubscribe-body';
import { hitIdOf } from './hit-identity';

/** Where the links point (HERALD_PUBLIC_URL), and whether the client address comes from X-Forwarded-For (HERALD_TRUST_PROXY). */
export interface TrackingSettings { publicUrl: string; trustProxy: boolean }

/** A transparent 1×1 GIF (42 bytes). */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
/** Every tracking answer is per hit: no cache may answer the next one. */
export const NO_STORE = { 'Cache-Control': 'no-store, no-cache, must-revalidate, private, max-age=0', Pragma: 'no-cache', Expires: 'Thu, 01 Jan 1970 00:00:00 GMT' };
/**
 * The online version is the account's HTML served from Herald's origin: sandboxed (no script,
 * an origin of its own, so it can reach nothing of Herald's), links may open and navigate.
 */
const ONLINE_HEADERS = {
  ...NO_STORE,
  'Content-Security-Policy': 'sandbox allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation; frame-ancestors \'none\'',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex',
};
/** The URL the token signed, checked once more before it goes into a header: absolute http(s), printable ASCII. */
export const REDIRECTABLE = /^https?:\/\/[\x21-\x7e]+$/i;

const notFound = () => errors.notFound('This link is not valid');

export function trackingRouter(deps: { store: Store; settings: TrackingSettings }): Router {
  const { store, settings } = deps;
  const recorder = trackingRecorderOf(store);
  // Hits an earlier API process held and did not record yet (core/tracking/held-hits.ts).
  recorder.held.resume().catch(() => undefined);
  const links = async () => ({ publicUrl: settings.publicUrl, secret: await trackingSecret(store) });
  const router = new Router({ prefix: '/t' });

  /** The sent message a token of `kind` names; 404 otherwise. */
  async function messageOf(kind: MessageKind, token: unknown): Promise<Resolved<TrackingPayload>> {
    const resolved = typeof token === 'string' ? await recorder.resolveMessage(kind, token) : undefined;
    if (!resolved) throw notFound();
    return resolved;
  }

  router.use(errorsAsPage);

  router.get('/o/:token', async (ctx) => {
    await recorder.open(await messageOf('o', ctx.params.token), hitOf(ctx), hitIdOf(ctx.req));
    ctx.set(NO_STORE);
    ctx.type = 'image/gif';
    ctx.body = PIXEL;
  });

  router.get('/c/:token', async (ctx) => {
    const resolved = await recorder.resolveClick(String(ctx.params.token));
    if (!resolved || !REDIRECTABLE.test(resolved.payload.link.target)) throw notFound();
    await recorder.click(resolved, hitOf(ctx), hitIdOf(ctx.req));
    redirect(ctx, resolved.payload.link.target);
  });

  router.get('/v/:token', async (ctx) => {
    const message = await messageOf('v', ctx.params.token);
    const version = await onlineVersion(store, await links(), message.payload.message);
    if (!version) throw notFound();
    await recorder.viewOnline(message, hitIdOf(ctx.req));
    ctx.set(ONLINE_HEADERS);
    ctx.type = version.type === 'html' ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8';
    ctx.body = version.body;
  });

  router.get('/s/:network/:token', async (ctx) => {
    const network = String(ctx.params.network);
    if (!isShareNetwork(network)) throw notFound();
    const message = await messageOf('s', ctx.params.token);
    await recorder.share(message, network, hitOf(ctx), hitIdOf(ctx.req));
    const online = `${settings.publicUrl}/t/v/${messageToken(await trackingSecret(store), 'v', messagePart(message.payload.message))}`;
    redirect(ctx, sharePage(network, online));
  });

  // The page changes nothing: mail scanners fetch links. Its button, or a mail client's one-click, POSTs.
  router.get('/u/:token', async (ctx) => {
    const { email } = await messageOf('u', ctx.params.token);
    recorder.countHit('unsubscribe');
    sendPage(ctx, 200, unsubscribePage(email));
  });

  router.post('/u/:token', async (ctx) => {
    const message = await messageOf('u', ctx.params.token);
    const body = await readUnsubscribeBody(ctx);
    await recorder.unsubscribe(message, body.oneClick ? 'oneclick' : (body.reason ?? DEFAULT_REASON), hitIdOf(ctx.req));
    sendPage(ctx, 200, unsubscribedPage(message.email));
  });

  return router;
}

function hitOf(ctx: Context): Hit {
  return { userAgent: ctx.get('user-agent'), ip: ctx.ip };
}

/** A 302 to exactly `url` (set as it is: Koa's redirect would re-encode it). */
function redirect(ctx: Context, url: string): void {
  ctx.status = 302;
  ctx.set(NO_STORE);
  ctx.set('Location', url);
  ctx.body = '';
}

/** Every error of a tracking link as a small page: people open these links in a browser. */
async function errorsAsPage(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (caught) {
    const error = toAppError(caught);
    const status = httpStatusOf(error);
    if (status >= 500) ctx.state.log?.error({ err: caught, status }, 'request failed');
    ctx.set(httpHeadersOf(error));
    sendPage(ctx, status, errorPage(error, ctx.state.requestId));
  }
}
