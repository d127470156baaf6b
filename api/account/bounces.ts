import type Router from '@koa/router';
import type { Store } from '../../adapters/store/store';
import { REPORTED_TYPES, reportBounce, type ReportedBounce } from '../../core/bounces/bounces-api';
import { MESSAGE_MAX_CHARS } from '../../core/bounces/outcome';
import { MAX_EMAIL_LENGTH } from '../../core/shared/email-address';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { reply } from './envelope';

const reportSchema = {
  type: 'object', additionalProperties: false, required: ['email', 'type'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: MAX_EMAIL_LENGTH, description: 'The address that bounced or complained.' },
    type: { type: 'string', enum: [...REPORTED_TYPES], description: '`hard` (the address does not exist), `soft` (a temporary failure) or `complaint` (marked as spam).' },
    message: { type: 'string', maxLength: MESSAGE_MAX_CHARS, description: 'What the bounce said: the event\'s `message`. Ignored for a complaint.' },
    mail_id: { type: 'string', pattern: '^mail_[0-9a-z]{1,30}$', description: 'The message it is about (an event\'s `mail_id`); by default the latest sent to the address.' },
  },
} as const;
const validateReport = validator<ReportedBounce>(reportSchema);

/** A bounce or complaint the account learnt of elsewhere (core/bounces/bounces-api.ts). */
export function bounceRoutes(router: Router, store: Store): void {
  router.post('/bounces', requirePermission('bounces:create'), async (ctx) => {
    const report = validateReport(ctx.request.body ?? {});
    reply(ctx, { data: await reportBounce(store, ctx.params.account, report) });
  });
}

const result = {
  type: 'object', required: ['email', 'type', 'mail_id', 'recorded'],
  properties: {
    email: { type: 'string', description: 'Lowercase.' },
    type: { type: 'string', enum: [...REPORTED_TYPES] },
    mail_id: { type: ['string', 'null'], description: 'The message the event was recorded against; null when the account never sent the address anything.' },
    recorded: {
      type: 'string', enum: ['event', 'suppression', 'nothing'],
      description: '`event`: a `track.mail.bounced` (or, for a complaint, `track.mail.unsubscribed` with reason `spam_fbl`) event of the message; '
        + '`suppression`: no message, the address suppressed and its contact marked; `nothing`: a soft bounce without a message.',
    },
  },
} as const;

export const bounceOperations = accountResource('Bounces', [{
  method: 'post', path: '/v2/{account}/bounces', id: 'reportBounce', summary: 'Report a bounce or a complaint',
  description: 'For bounces and complaints Herald does not receive itself (a provider without a webhook here, a mailbox of your own). '
    + 'Recorded as Herald records its own reports: a hard bounce suppresses the address (reason `bounced`) and marks its contact BOUNCED; '
    + 'a complaint suppresses it (reason `complained`) and marks the contact COMPLAINED; a soft bounce records its event only. '
    + 'With `mail_id`: that message of the account (unknown or another account\'s: 404; `email` must be its recipient and it must have been sent: 400). '
    + 'Without: the account\'s latest message sent to the address; when there is none, a hard bounce or complaint still suppresses the address '
    + 'and a soft bounce records nothing. The same report posted again records no second event (one hard bounce, one soft bounce and one complaint per message).',
  permissions: ['bounces:create'], body: reportSchema, status: 200, response: 'What was recorded',
  responseSchema: { type: 'object', required: ['href', 'success', 'data'], properties: { href: { type: 'string' }, success: { const: true }, data: result } },
  errors: [404],
}]);
