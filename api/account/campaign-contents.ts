// A campaign's content (`/v2/{account}/campaigns/{id}/contents…`): the record (JSON or form), its
// bodies as raw documents (`.html`: text/html, `.txt`: text/plain), and test sends. The raw routes
// read their own bodies, which the account router's readBody (JSON and form only) would refuse,
// so they live on a router of their own, mounted before it.
import Router from '@koa/router';
import type { Context } from 'koa';
import {
  contentOf, createContent, deleteContent, MAX_CONTENT_BODY_BYTES, setHtmlBody, setTextBody, updateContent,
} from '../../core/campaigns/content-record';
import { sendTestMessages, MAX_TEST_ADDRESSES } from '../../core/campaigns/send-test';
import { errors } from '../../core/shared/errors';
import { formatBytes, httpErrors } from '../http-errors';
import type { CampaignContentDoc, CampaignDoc, Store } from '../../adapters/store/store';
import { htmlToText } from '../../core/content/text-renderings';
import type { AcceptDeps } from '../../core/transactional/accept';
import { readText } from '../middleware/body';
import { accountResource } from '../openapi/operation';
import { authenticate, requireOwnAccount, requirePermission } from './auth';
import { contentCreateSchema, contentUpdateSchema, readContentCreate, readContentUpdate, readSendTest, sendTestSchema } from './campaign-input';
import { contentChangesView, contentView } from './campaign-views';
import { loadCampaign } from './campaigns';
import { reply } from './envelope';
import { integerParam } from './params';
import { sendDocument } from './templates';

async function loadContent(store: Store, ctx: Context): Promise<{ campaign: CampaignDoc; content: CampaignContentDoc }> {
  const campaign = await loadCampaign(store, ctx);
  return { campaign, content: contentOf(campaign, integerParam(ctx, 'contentId')) };
}

const contentUrl = (campaign: CampaignDoc, content: CampaignContentDoc) => `/v2/${campaign.account}/campaigns/${campaign.id}/contents/${content.id}`;

/** The content record's routes, on the account router. */
export function campaignContentRoutes(router: Router, deps: AcceptDeps): void {
  const { store } = deps;

  router.get('/campaigns/:id/contents', requirePermission('campaigns:list'), async (ctx) => {
    const campaign = await loadCampaign(store, ctx);
    reply(ctx, { data: campaign.content ? [contentView(campaign.content)] : [] });
  });

  // 200, as a campaign create. One content per campaign: a second is 400.
  router.post('/campaigns/:id/contents', requirePermission('campaigns:update'), async (ctx) => {
    const campaign = await loadCampaign(store, ctx);
    const content = await createContent(store, campaign, readContentCreate(ctx.request.body));
    reply(ctx, { data: contentView(content), location: contentUrl(campaign, content) });
  });

  router.get('/campaigns/:id/contents/:contentId', requirePermission('campaigns:list'), async (ctx) => {
    reply(ctx, { data: contentView((await loadContent(store, ctx)).content) });
  });

  router.put('/campaigns/:id/contents/:contentId', requirePermission('campaigns:update'), async (ctx) => {
    const { campaign, content } = await loadContent(store, ctx);
    reply(ctx, { data: contentChangesView(content.id, await updateContent(store, campaign, content, readContentUpdate(ctx.request.body))) });
  });

  router.delete('/campaigns/:id/contents/:contentId', requirePermission('campaigns:update'), async (ctx) => {
    const { campaign, content } = await loadContent(store, ctx);
    await deleteContent(store, campaign, content);
    reply(ctx, {});
  });

  router.post('/campaigns/:id/contents/:contentId/sendtest', requirePermission('campaigns:launch'), async (ctx) => {
    const { campaign, content } = await loadContent(store, ctx);
    const emails = readSendTest(ctx.request.body);
    if (content.html === null) throw errors.badRequest(`The content has no HTML body yet: set it with PUT ${contentUrl(campaign, content)}.html`);
    const { requestId, batchId } = await sendTestMessages(deps, campaign, emails);
    reply(ctx, { data: { emails, requestId, batchId } });
  });
}

const CHARSETS = ['', 'utf-8', 'utf8', 'us-ascii'];

/** The raw body of a PUT …/{contentId}.html|.txt, of exactly `mediaType` in UTF-8 (415 otherwise); '' when empty. */
async function readDocument(ctx: Context, mediaType: 'text/html' | 'text/plain'): Promise<string> {
  if (ctx.request.type !== mediaType || !CHARSETS.includes(ctx.request.charset.toLowerCase())) {
    throw httpErrors.unsupportedMediaType(`Content-Type must be ${mediaType} (UTF-8)`);
  }
  const hasBody = ctx.get('transfer-encoding') !== '' || (ctx.request.length ?? 0) > 0;
  return hasBody ? readText(ctx, MAX_CONTENT_BODY_BYTES) : '';
}

/** The content's bodies as documents: GET serves them, PUT sets them from a raw body. */
export function campaignContentBodyRouter(store: Store): Router {
  const router = new Router({ prefix: '/v2/:account' });
  router.use(authenticate(store), requireOwnAccount);
  const path = (ext: string) => `/campaigns/:id/contents/:contentId.${ext}`;

  router.get(path('html'), requirePermission('campaigns:list'), async (ctx) => {
    const { content } = await loadContent(store, ctx);
    if (content.html === null) throw errors.notFound('The content has no HTML body yet');
    sendDocument(ctx, 'text/html', content.html);
  });

  router.put(path('html'), requirePermission('campaigns:update'), async (ctx) => {
    const { campaign, content } = await loadContent(store, ctx);
    const updated = await setHtmlBody(store, campaign, content, await readDocument(ctx, 'text/html'));
    reply(ctx, { data: { ...contentView(updated), mjml: updated.mjml !== undefined } });
  });

  // The MJML source an MJML body was compiled from (an editor's way back to it), as plain text.
  router.get(path('mjml'), requirePermission('campaigns:list'), async (ctx) => {
    const { content } = await loadContent(store, ctx);
    if (content.mjml === undefined) throw errors.notFound('The content\'s body is not MJML');
    sendDocument(ctx, 'text/plain', content.mjml);
  });

  // The text part set, or else the text derived from the HTML.
  router.get(path('txt'), requirePermission('campaigns:list'), async (ctx) => {
    const { content } = await loadContent(store, ctx);
    const text = content.text ?? (content.html !== null ? htmlToText(content.html) : null);
    if (text === null) throw errors.notFound('The content has no body yet');
    sendDocument(ctx, 'text/plain', text);
  });

  router.put(path('txt'), requirePermission('campaigns:update'), async (ctx) => {
    const { campaign, content } = await loadContent(store, ctx);
    const updated = await setTextBody(store, campaign, content, await readDocument(ctx, 'text/plain'));
    reply(ctx, { data: contentView(updated) });
  });
  return router;
}

const limit = formatBytes(MAX_CONTENT_BODY_BYTES);
const draftOnly = 'The campaign must be DRAFT (400 otherwise).';

export const campaignContentOperations = accountResource('Campaigns', [
  {
    method: 'get', path: '/v2/{account}/campaigns/{id}/contents', id: 'listCampaignContents', summary: 'The campaign\'s contents (none or one)',
    permissions: ['campaigns:list'], status: 200, response: 'An array of content records (no bodies)',
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/contents', id: 'createCampaignContent', summary: 'Add the campaign\'s content',
    description: `One content per campaign: a second is 400 BAD_REQUEST. replyTo and replyToName default to "", unsubscribeText to the default line. ${draftOnly}`,
    permissions: ['campaigns:update'], body: contentCreateSchema, status: 200, location: true, response: 'The content record',
  },
  {
    method: 'get', path: '/v2/{account}/campaigns/{id}/contents/{contentId}', id: 'getCampaignContent', summary: 'The content record (no bodies)',
    permissions: ['campaigns:list'], status: 200, response: 'The content record',
  },
  {
    method: 'put', path: '/v2/{account}/campaigns/{id}/contents/{contentId}', id: 'updateCampaignContent', summary: 'Change the content record',
    description: draftOnly, permissions: ['campaigns:update'], body: contentUpdateSchema, status: 200, response: 'The id and what changed',
  },
  {
    method: 'delete', path: '/v2/{account}/campaigns/{id}/contents/{contentId}', id: 'deleteCampaignContent', summary: 'Remove the content, bodies included',
    description: draftOnly, permissions: ['campaigns:update'], status: 200, response: 'Deleted',
  },
  {
    method: 'get', path: '/v2/{account}/campaigns/{id}/contents/{contentId}.html', id: 'getCampaignContentHtml', summary: 'The HTML body',
    description: 'The HTML sent (an MJML body compiled); 404 while none is set. Served with a sandboxing Content-Security-Policy.',
    permissions: ['campaigns:list'], status: 200, response: 'The HTML', responseMediaType: 'text/html', responseSchema: { type: 'string' },
  },
  {
    method: 'put', path: '/v2/{account}/campaigns/{id}/contents/{contentId}.html', id: 'setCampaignContentHtml', summary: 'Set the HTML body',
    description: `A raw body with Content-Type text/html (another type is 415), UTF-8, at most ${limit} (413). A body that begins with \`<mjml\` is MJML: `
      + `compiled once, here (an error is 400 VALIDATION_ERROR naming its line), and kept beside the HTML it gave. An empty body clears it. ${draftOnly}`,
    permissions: ['campaigns:update'], rawBody: { mediaType: 'text/html', description: 'The HTML (or MJML) body.' }, status: 200,
    response: 'The content record, with `mjml` telling whether the body was MJML',
  },
  {
    method: 'get', path: '/v2/{account}/campaigns/{id}/contents/{contentId}.mjml', id: 'getCampaignContentMjml', summary: 'The MJML source of the body',
    description: 'The MJML an MJML body was compiled from, as text/plain; 404 when the body is HTML or not set.',
    permissions: ['campaigns:list'], status: 200, response: 'The MJML', responseMediaType: 'text/plain', responseSchema: { type: 'string' },
  },
  {
    method: 'get', path: '/v2/{account}/campaigns/{id}/contents/{contentId}.txt', id: 'getCampaignContentText', summary: 'The text body',
    description: 'The plain-text part set, or else the text derived from the HTML; 404 while neither is set.',
    permissions: ['campaigns:list'], status: 200, response: 'The text', responseMediaType: 'text/plain', responseSchema: { type: 'string' },
  },
  {
    method: 'put', path: '/v2/{account}/campaigns/{id}/contents/{contentId}.txt', id: 'setCampaignContentText', summary: 'Set the plain-text part',
    description: `A raw body with Content-Type text/plain (another type is 415), UTF-8, at most ${limit}. An empty body removes it. ${draftOnly}`,
    permissions: ['campaigns:update'], rawBody: { mediaType: 'text/plain', description: 'The text part.' }, status: 200, response: 'The content record',
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/contents/{contentId}/sendtest', id: 'sendCampaignTest', summary: 'Send the content to test addresses',
    description: `\`emails\`: 1 to ${MAX_TEST_ADDRESSES} addresses (JSON array or form \`emails[]=\`). Each gets the message as a recipient would; `
      + 'accepted like a transactional send (its batch id in the answer). Any state; the content needs its HTML body (400 otherwise).',
    permissions: ['campaigns:launch'], body: sendTestSchema, status: 200, response: '`{emails, requestId, batchId}`',
  },
]);
