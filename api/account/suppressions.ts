import type Router from '@koa/router';
import { addSuppression, removeSuppression, suppressionPage } from '../../core/sending/suppression-list';
import { MAX_EMAIL_LENGTH } from '../../core/shared/email-address';
import type { Store, SuppressionDoc } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';

const REASONS = ['manual', 'unsubscribed', 'bounced', 'complained'] as const;
const SOURCES = ['relay', 'report', 'unsubscribe', 'api', 'migration'] as const;

const addSchema = {
  type: 'object', additionalProperties: false, required: ['email'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: MAX_EMAIL_LENGTH },
    reason: { type: 'string', enum: [...REASONS], default: 'manual', description: 'Why it gets no mail; `manual` by default.' },
  },
} as const;
const validateAdd = validator<{ email: string; reason?: SuppressionDoc['reason'] }>(addSchema);

const LIST: ListSpec = { sortFields: ['created', 'email'], defaultDir: 'desc', defaultLimit: 100 };

/** The account's suppression list (core/sending/suppression-list.ts). */
export function suppressionRoutes(router: Router, store: Store): void {
  router.get('/suppressions', requirePermission('contacts:list'), async (ctx) => {
    const options = parseListOptions(ctx, LIST);
    const { items, total } = await suppressionPage(store, ctx.params.account, {
      offset: options.offset, limit: options.limit, sortby: options.sortby as 'created' | 'email', sortdir: options.sortdir, contains: options.qText,
    });
    replyPage(ctx, options, items, total);
  });

  router.post('/suppressions', requirePermission('contacts:update'), async (ctx) => {
    const { email, reason } = validateAdd(ctx.request.body ?? {});
    const { suppression, created } = await addSuppression(store, ctx.params.account, email, reason);
    reply(ctx, { status: created ? 201 : 200, data: suppression, location: `/v2/${ctx.params.account}/suppressions/${encodeURIComponent(suppression.email)}` });
  });

  router.delete('/suppressions/:email', requirePermission('contacts:update'), async (ctx) => {
    reply(ctx, { data: await removeSuppression(store, ctx.params.account, String(ctx.params.email)) });
  });
}

const item = {
  type: 'object', required: ['email', 'reason', 'created', 'source'],
  properties: {
    email: { type: 'string', description: 'Lowercase.' },
    reason: { type: 'string', enum: [...REASONS] },
    created: { type: 'string', format: 'date-time' },
    source: {
      type: ['string', 'null'], enum: [...SOURCES, null],
      description: 'What put it there: `relay` (a hard refusal at sending), `report` (a bounce or complaint report), `unsubscribe` '
        + '(the unsubscribe page or one-click), `api` (added here); null for entries stored before Herald kept it.',
    },
  },
} as const;
const envelopeOf = (data: object) => ({
  type: 'object', required: ['href', 'success', 'data'], properties: { href: { type: 'string' }, success: { const: true }, data },
});

export const suppressionOperations = accountResource('Suppressions', [
  {
    method: 'get', path: '/v2/{account}/suppressions', id: 'listSuppressions', summary: 'The account\'s suppression list, newest first',
    description: 'Addresses that get no mail: a send to one is dropped (`track.mail.dropped`). Each item is `{email, reason, created, source}`. '
      + 'Paged like the other listings (`offset`, `limit`; `paging` and `sort` in the answer). A contact whose state is UNSUBSCRIBED, '
      + 'BOUNCED or COMPLAINED gets no mail either, listed here or not.',
    permissions: ['contacts:list'], listing: { spec: LIST, q: 'a part of the address, in any letter case (`*` is a literal character here)' },
    status: 200, response: 'A page of suppressions',
  },
  {
    method: 'post', path: '/v2/{account}/suppressions', id: 'addSuppression', summary: 'Put an address on the suppression list',
    description: '201 with the entry when it was added; 200 with the entry as it was (its first reason and date kept) when the address '
      + 'was there already: adding is idempotent. The address is kept lowercase.',
    permissions: ['contacts:update'], body: addSchema, status: 201, location: true, response: 'The entry',
    responseSchema: envelopeOf(item), responses: { 200: { description: 'It was there already: the entry, unchanged', schema: envelopeOf(item) } },
  },
  {
    method: 'delete', path: '/v2/{account}/suppressions/{email}', id: 'removeSuppression', summary: 'Take an address off the suppression list',
    description: 'Lifts the list\'s block only; 404 when the address is not listed (any letter case). It resubscribes nobody: a contact '
      + 'with this address keeps its state, and while that is UNSUBSCRIBED, BOUNCED or COMPLAINED the address still gets no mail; '
      + '`data.contactState` tells (null: no contact). Change the contact itself through the contacts API to lift that too.',
    permissions: ['contacts:update'], status: 200, response: '`{email, contactState}`', errors: [404],
  },
]);
