import type Router from '@koa/router';
import { batchDetail, batchPage, MAX_BATCH_MESSAGES } from '../../core/transactional/batches';
import { errors } from '../../core/shared/errors';
import type { Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { requirePermission } from './auth';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';

const LIST: ListSpec = { sortFields: ['created'], defaultDir: 'desc', defaultLimit: 20 };

/** The account's transactional batches (core/transactional/batches.ts); `namespace`: Temporal's, for the link to its runs. */
export function batchRoutes(router: Router, deps: { store: Store; namespace: string }): void {
  router.get('/batches', requirePermission('activity:list'), async (ctx) => {
    const options = parseListOptions(ctx, LIST);
    const { items, total } = await batchPage(deps.store, ctx.params.account, {
      offset: options.offset, limit: options.limit, sortdir: options.sortdir, idContains: options.qText,
    });
    replyPage(ctx, options, items, total);
  });

  router.get('/batches/:batchId', requirePermission('activity:list'), async (ctx) => {
    const batchId = String(ctx.params.batchId);
    const batch = batchId.length <= 200 ? await batchDetail(deps.store, ctx.params.account, batchId, deps.namespace) : undefined;
    if (!batch) throw errors.notFound('No such batch');
    reply(ctx, { data: batch });
  });
}

const text = { type: 'string' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const summaryProperties = {
  id: { type: 'string', description: 'The batch id: a send\'s `Herald-Batch-Id`.' },
  created: { type: 'string', format: 'date-time', description: 'When its first request was accepted.' },
  status: {
    type: 'string', enum: ['scheduled', 'sending', 'sent', 'cancelled'],
    description: '`scheduled`: waiting for its launch_date; `sending`: messages still without an outcome; `sent`: every message has one '
      + '(sent, bounced, dropped or failed); `cancelled`: cancelled with DELETE /v1/mail/batches/{batchId}.',
  },
  recipients: { ...count, description: 'Messages asked for (recipients[] elements, or envelope recipients over SMTP).' },
  sent: { ...count, description: 'Messages handed to the relay, or refused by it at sending.' },
  delivered: { ...count, description: 'Sent and not bounced (so far).' },
  bounced: { ...count, description: 'Messages with a bounce (a refusal or a report, hard or soft), each once.' },
  dropped: { ...count, description: 'Messages never sent: a suppressed address, a cancelled batch.' },
  subject: { type: ['string', 'null'], description: 'The first request\'s subject as sent (its template, not rendered); over SMTP the Subject header as written.' },
  source: { type: 'string', enum: ['http', 'smtp'] },
  requests: { ...count, description: 'Requests in the batch: more than one when sends shared a batch_code.' },
  workflowId: { type: 'string', description: 'The Temporal workflow that sends it: the account\'s `sender-<account>`, or `tx-<account>-<request>` for a launch_date.' },
} as const;
const summary = { type: 'object', required: Object.keys(summaryProperties), properties: summaryProperties } as const;
const detail = {
  type: 'object',
  required: [...Object.keys(summaryProperties), 'messages', 'messagesTotal', 'temporal'],
  properties: {
    ...summaryProperties,
    messages: {
      type: 'array', maxItems: MAX_BATCH_MESSAGES,
      description: `The first ${MAX_BATCH_MESSAGES} messages whose outcome is known, in the order they were sent; a message still waiting (deferred, scheduled) is not among them yet.`,
      items: {
        type: 'object', required: ['mail_id', 'to', 'status', 'events'],
        properties: {
          mail_id: text, to: text,
          status: { type: 'string', enum: ['sent', 'bounced', 'dropped', 'failed'] },
          events: {
            type: 'array', description: 'Its events, oldest first (opens and clicks included).',
            items: { type: 'object', required: ['type', 'time'], properties: { type: text, time: { type: 'string', format: 'date-time' } } },
          },
        },
      },
    },
    messagesTotal: { ...count, description: 'Messages whose outcome is known, all of them.' },
    temporal: {
      type: 'object', required: ['namespace', 'workflowId', 'query'],
      properties: { namespace: text, workflowId: text, query: { type: 'string', description: 'A Temporal UI workflow search finding the runs that sent it.' } },
    },
  },
} as const;
const envelopeOf = (data: object) => ({
  type: 'object', required: ['href', 'success', 'data'], properties: { href: text, success: { const: true }, data },
});

export const batchOperations = accountResource('Activity', [
  {
    method: 'get', path: '/v2/{account}/batches', id: 'listBatches', summary: 'The account\'s transactional batches, newest first',
    description: 'Sends over HTTP and SMTP grouped by batch id, with what their messages became (counted from their events). Paged like '
      + 'the other listings (`offset`, `limit`; `paging` and `sort` in the answer).',
    permissions: ['activity:list'], listing: { spec: LIST, q: 'a part of the batch id, in any letter case (`*` is a literal character here)' },
    status: 200, response: 'A page of batches',
    responseSchema: {
      type: 'object', required: ['href', 'success', 'data', 'paging', 'sort'],
      properties: { href: text, success: { const: true }, data: { type: 'array', items: summary }, paging: { type: 'object' }, sort: { type: 'object' } },
    },
  },
  {
    method: 'get', path: '/v2/{account}/batches/{batchId}', id: 'getBatch', summary: 'A transactional batch and its messages',
    description: `The batch's figures, its first ${MAX_BATCH_MESSAGES} messages with their events, and where its runs are in Temporal. `
      + '404 for a batch id the account does not have.',
    permissions: ['activity:list'], status: 200, response: 'The batch', responseSchema: envelopeOf(detail),
  },
]);
