// The OpenAPI declarations of the tracking links (api/tracking/router.ts). They are public: the
// signed token is the credential. Every error is a small HTML page; a token that is malformed,
// forged, altered or of a message never sent is a 404.
import type { OperationSpec } from '../openapi/operation';
import { unsubscribeBodySchema } from './unsubscribe-body';

const html = (what: string) => ({ type: 'string', contentMediaType: 'text/html', description: `${what} (\`text/html\`), not JSON.` });

export const trackingOperations: OperationSpec[] = [
  {
    method: 'get', path: '/t/o/{token}', id: 'trackOpen', tag: 'Tracking', auth: 'none',
    summary: 'Open pixel',
    description: 'A transparent 1×1 GIF, never cached. Records `track.mail.opened`, and `track.mail.first_opened` for the message\'s first open.',
    status: 200, response: 'The pixel (`image/gif`)', responseSchema: { type: 'string', contentMediaType: 'image/gif' },
  },
  {
    method: 'get', path: '/t/c/{token}', id: 'trackClick', tag: 'Tracking', auth: 'none',
    summary: 'Click redirect',
    description: 'Records `track.mail.clicked` (and `track.mail.first_clicked` for the first), then redirects to the URL signed into the link, never elsewhere.',
    status: 302, response: 'To the link\'s URL (`Location`)', responseSchema: { type: 'string' },
  },
  {
    method: 'get', path: '/t/v/{token}', id: 'viewOnline', tag: 'Tracking', auth: 'none',
    summary: 'Online version of a message',
    description: 'The message\'s HTML as its recipient got it (its text when it has no HTML), without the open pixel, sandboxed. Records `track.mail.viewed_online`.',
    status: 200, response: 'The message (`text/plain` when it has no HTML)', responseSchema: html('The message\'s HTML'),
  },
  {
    method: 'get', path: '/t/s/{network}/{token}', id: 'shareMessage', tag: 'Tracking', auth: 'none',
    summary: 'Share a message\'s online version',
    description: 'Records `track.mail.shared` (`shared_on`: the network), then redirects to the network\'s share page for the message\'s online version.',
    status: 302, response: 'To the network\'s share page (`Location`)', responseSchema: { type: 'string' },
  },
  {
    method: 'get', path: '/t/u/{token}', id: 'unsubscribePage', tag: 'Tracking', auth: 'none',
    summary: 'Unsubscribe page',
    description: 'A page with the reasons to choose from and an "Unsubscribe" button (a POST). It changes nothing: mail scanners fetch links.',
    status: 200, response: 'The page', responseSchema: html('An HTML page'),
  },
  {
    method: 'post', path: '/t/u/{token}', id: 'unsubscribe', tag: 'Tracking', auth: 'none',
    summary: 'Unsubscribe (the page\'s button, or RFC 8058 one-click)',
    description: 'Puts the address on the account\'s suppression list, marks the account\'s ACTIVE contact with that address UNSUBSCRIBED, and records '
      + '`track.mail.unsubscribed` once per message (its first reason stays): `oneclick` for `List-Unsubscribe=One-Click`, else the chosen reason. Idempotent. '
      + 'RFC 8058 clients may also post the one-click as `multipart/form-data`.',
    body: unsubscribeBodySchema, status: 200, response: 'The "unsubscribed" page', responseSchema: html('An HTML page'),
  },
];
