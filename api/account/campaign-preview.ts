import type Router from '@koa/router';
import { contentOf, MAX_CONTENT_BODY_BYTES } from '../../core/campaigns/content-record';
import { previewContent, type PreviewInput } from '../../core/campaigns/preview';
import { MAX_SUBJECT_LENGTH } from '../../core/content/templates';
import { MAX_EMAIL_LENGTH } from '../../core/shared/email-address';
import { errors, fieldError } from '../../core/shared/errors';
import type { Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { loadCampaign } from './campaigns';
import { reply } from './envelope';
import { integerParam } from './params';

const body = (what: string) => ({ type: 'string', maxLength: MAX_CONTENT_BODY_BYTES, description: `${what}; absent: the saved one.` });
const previewSchema = {
  type: 'object', additionalProperties: false,
  properties: {
    html: body('The HTML body (MJML when it begins with `<mjml`, as a saved body)'),
    mjml: body('An MJML body, compiled as a save would be (strict validation); not with `html`'),
    text: body('The plain-text part ("" for none)'),
    subject: { type: 'string', maxLength: MAX_SUBJECT_LENGTH, description: 'The subject; absent: the saved one.' },
    email: {
      type: 'string', format: 'email', maxLength: MAX_EMAIL_LENGTH,
      description: 'Render for the account\'s contact of this address; absent or not a contact: a sample contact (Jane Doe, custom fields filled with samples).',
    },
  },
} as const;
const validatePreview = validator<PreviewInput>(previewSchema);

/** A campaign content's live preview (core/campaigns/preview.ts): renders, stores nothing. */
export function campaignPreviewRoutes(router: Router, deps: { store: Store; tracking: { publicUrl: string } }): void {
  router.post('/campaigns/:id/contents/:contentId/preview', requirePermission('campaigns:list'), async (ctx) => {
    const campaign = await loadCampaign(deps.store, ctx);
    const content = contentOf(campaign, integerParam(ctx, 'contentId'));
    const input = validatePreview(ctx.request.body ?? {});
    if (input.html !== undefined && input.mjml !== undefined) {
      throw errors.validation({ mjml: fieldError('invalid_value', 'Give html or mjml, not both') });
    }
    reply(ctx, { data: await previewContent(deps.store, campaign, content, input, deps.tracking.publicUrl) });
  });
}

const text = { type: 'string' } as const;
const previewEnvelope = {
  type: 'object', required: ['href', 'success', 'data'],
  properties: {
    href: text, success: { const: true },
    data: {
      type: 'object', required: ['subject', 'html', 'text', 'textDerived', 'contact'],
      properties: {
        subject: text,
        html: { type: 'string', description: 'The HTML as sent: layout (header, unsubscribe footer) included, merge tags filled; no open pixel, links not rewritten.' },
        text: { type: 'string', description: 'The text part, or without one the text derived from the HTML.' },
        textDerived: { type: 'boolean', description: 'true: the message has no text part; `text` is derived from the HTML.' },
        contact: {
          type: 'object', required: ['email', 'sample'],
          properties: { email: text, sample: { type: 'boolean', description: 'true: a sample contact filled the merge tags.' } },
        },
      },
    },
  },
} as const;

export const campaignPreviewOperations = accountResource('Campaigns', [{
  method: 'post', path: '/v2/{account}/campaigns/{id}/contents/{contentId}/preview', id: 'previewCampaignContent',
  summary: 'The content as a recipient would get it',
  description: 'Renders the saved content, or the fields given in place of the saved ones (nothing is stored; any campaign state): MJML '
    + 'compiled, the campaign\'s layout and options applied, merge tags filled for the account\'s contact of `email`, else for a sample '
    + 'contact. Tracking is left out: no open pixel, links go straight to their targets (utm parameters added when ANALYTICS is on); '
    + 'the message\'s own links (`urls.unsubscribe`, `urls.online_version`, shares) carry tokens Herald refuses, so they act on nobody. '
    + 'An MJML or template error is 400 VALIDATION_ERROR naming the field (`html`, `mjml`, `text`, `subject`) with its line; without '
    + 'an HTML body saved or given, 400 on `html`.',
  permissions: ['campaigns:list'], body: previewSchema, status: 200, response: '`{subject, html, text, textDerived, contact}`',
  responseSchema: previewEnvelope,
}]);
