import Router from '@koa/router';
import type { Context } from 'koa';
import { errors } from '../../core/shared/errors';
import type { OperationSpec } from '../openapi/operation';
import type { ConsoleAssets } from './assets';

export interface ConsoleSettings {
  /** The Temporal UI's address, for links to a batch's or campaign's run (null: not shown). */
  temporalUi: string | null;
  namespace: string;
}

/**
 * What the console's pages may do. Scripts, styles and connections only from Herald itself; no
 * inline script. Inline styles are allowed because the sandboxed preview of a rendered message
 * (an iframe with srcdoc, which inherits this policy) is email HTML, styled inline by nature;
 * the console's own code sets no inline style attribute from data. Images, stylesheets and fonts
 * from https: for the same reason: a message's own images and web fonts (MJML's default font is a
 * Google Fonts stylesheet), so the preview looks as the recipient will see it.
 */
export const CONSOLE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline' https:", "img-src 'self' data: https: http:",
  "connect-src 'self'", "font-src 'self' https: data:", "frame-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const YEAR_SECONDS = 365 * 24 * 3600;

function secure(ctx: Context) {
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

/** The settings as an HTML attribute value: JSON, with the characters that could end the attribute escaped. */
function attribute(settings: ConsoleSettings): string {
  return JSON.stringify(settings).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * GET /console and every address below it: the console's page (index.html; its routes are the
 * browser's), with the hashed assets under /console/assets/ cached for a year.
 */
export function consoleRouter(assets: ConsoleAssets, settings: ConsoleSettings): Router {
  const router = new Router({ prefix: '/console' });
  const page = assets.index?.replace('%SETTINGS%', attribute(settings)) ?? null;

  router.get('/assets/:name', (ctx) => {
    const asset = assets.files.get(ctx.params.name);
    if (!asset) throw errors.notFound('No such console file');
    secure(ctx);
    ctx.set('Cache-Control', `public, max-age=${YEAR_SECONDS}, immutable`);
    ctx.type = asset.type;
    ctx.body = asset.body;
  });

  const serve = (ctx: Context) => {
    if (page === null) throw errors.unavailable('The console is not built: run `npm run build`.');
    secure(ctx);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  };
  router.get('/', serve);
  router.get('/*path', serve);
  return router;
}

const html = (what: string) => ({ type: 'string', contentMediaType: 'text/html', description: `${what} (\`text/html\`), not JSON.` });

export const consoleOperations: OperationSpec[] = [
  {
    method: 'get', path: '/console', id: 'console', tag: 'Console', auth: 'none', summary: 'The web console',
    description: 'The console\'s one HTML page (its pages are routed in the browser); it signs in with `POST /v2/login` and calls this API '
      + 'with the session token in `X-Auth-Token`. Served with a strict Content-Security-Policy, never cached. 503 when the console is not built.',
    status: 200, response: 'The page', responseSchema: html('The console'), responseMediaType: 'text/html', errors: [503],
  },
  {
    method: 'get', path: '/console/{path}', id: 'consolePage', tag: 'Console', auth: 'none', summary: 'A console address (the same page)',
    status: 200, response: 'The page', responseSchema: html('The console'), responseMediaType: 'text/html', errors: [503],
  },
  {
    method: 'get', path: '/console/assets/{name}', id: 'consoleAsset', tag: 'Console', auth: 'none', summary: 'A built script or stylesheet of the console', offline: true,
    description: 'Names carry a hash of their content: cached for a year (`immutable`).',
    status: 200, response: 'The file', responseSchema: { type: 'string' }, responseMediaType: 'text/javascript', errors: [404],
  },
];
