import type Router from '@koa/router';
import { STREAMS, type RelayDefinition } from '../../adapters/relay/routes';
import type { Store } from '../../adapters/store/store';
import type { FeedbackSettings } from '../../core/bounces/feedback-settings';
import { feedbackSources } from '../../core/bounces/feedback-sources';
import { relayViews } from '../../core/relays/relay-view';
import { accountResource } from '../openapi/operation';
import { requirePermission } from './auth';
import { reply } from './envelope';

export interface RelayApiDeps {
  store: Store;
  /** The relays file's relays (or SMTP_RELAY_URL's one, `default`); empty in an API process that names none. */
  relays: RelayDefinition[];
  feedback: { settings: FeedbackSettings };
  tracking: { publicUrl: string };
}

/**
 * GET /v2/{account}/relays: the relays (core/relays/relay-view.ts) and the feedback sources
 * (core/bounces/feedback-sources.ts), never a credential. Install-wide settings, read with the
 * account-level read permission, as the account's integrations are.
 */
export function relayRoutes(router: Router, deps: RelayApiDeps): void {
  router.get('/relays', requirePermission('account:list'), async (ctx) => {
    const [relays, sources] = await Promise.all([
      relayViews(deps.store, deps.relays, ctx.params.account),
      feedbackSources(deps.store, deps.feedback.settings, deps.tracking.publicUrl),
    ]);
    reply(ctx, { data: { relays, ...sources } });
  });
}

const text = { type: 'string' } as const;
const isoOrNull = { type: ['string', 'null'], format: 'date-time' } as const;
const domains = { type: 'array', items: text } as const;
const countsSchema = {
  type: 'object', required: ['sent', 'deferred', 'failed', 'trouble'],
  properties: { sent: { type: 'integer' }, deferred: { type: 'integer' }, failed: { type: 'integer' }, trouble: { type: 'integer' } },
} as const;
const relay = {
  type: 'object', required: ['name', 'conditions', 'maxConnections', 'host', 'state', 'counts', 'workers'],
  properties: {
    name: text,
    conditions: {
      type: 'object',
      properties: {
        streams: { type: 'array', items: { enum: STREAMS } },
        accounts: { type: 'array', items: text, description: 'This account\'s name when the relay names it; other accounts\' names are never shown' },
        senderDomains: domains,
        recipientDomains: domains,
      },
    },
    ratePerSecond: { type: 'number' },
    maxConnections: { type: 'integer' },
    host: { type: 'string', description: '`protocol//host:port` of the relay\'s URL (never its user or password)' },
    state: { enum: ['up', 'down', 'partly down', 'unknown'] },
    counts: countsSchema,
    workers: { type: 'integer', description: 'Worker processes holding a live lease of the relay' },
  },
} as const;
const provider = {
  type: 'object', required: ['provider', 'configured', 'url', 'lastReportAt', 'lastOutcome'],
  properties: {
    provider: { enum: ['ses', 'sendgrid', 'mailgun', 'postmark'] },
    configured: { type: 'boolean' },
    url: { type: 'string', description: '`{HERALD_PUBLIC_URL}/v1/feedback/{provider}`' },
    lastReportAt: isoOrNull,
    lastOutcome: {
      anyOf: [{ type: 'null' }, {
        type: 'object', required: ['events', 'recorded', 'ignored'],
        properties: { events: { type: 'integer' }, recorded: { type: 'integer' }, ignored: { type: 'integer' } },
      }],
    },
  },
} as const;
const mailbox = {
  type: 'object', required: ['configured', 'host', 'lastReadAt', 'lastReportAt'],
  properties: { configured: { type: 'boolean' }, host: { type: ['string', 'null'] }, lastReadAt: isoOrNull, lastReportAt: isoOrNull },
} as const;

export const relayOperations = accountResource('Relays', [{
  method: 'get', path: '/v2/{account}/relays', id: 'getRelays', summary: 'The relays and where bounce and complaint reports come from',
  description: 'The relays file\'s relays in its order (or `default`, SMTP_RELAY_URL\'s one): conditions, limits, host (never the URL\'s '
    + 'credentials), and how the worker processes see them now, from their leases: `state` `up` when every live worker says up, `down` when '
    + 'all say down, `partly down` when they disagree, `unknown` when no worker holds a live lease; `counts` summed over the live workers '
    + '(since each started). A relay reserved to other accounts is left out, and other accounts\' names are never shown. `feedback`: each '
    + 'provider\'s webhook, configured or not, the URL to give the provider, and the last request taken; `mailbox`: the bounce mailbox.',
  permissions: ['account:list'], status: 200, response: '`{relays, feedback, mailbox}`',
  responseSchema: {
    type: 'object', required: ['href', 'success', 'data'],
    properties: {
      href: text, success: { const: true },
      data: {
        type: 'object', required: ['relays', 'feedback', 'mailbox'],
        properties: { relays: { type: 'array', items: relay }, feedback: { type: 'array', items: provider }, mailbox },
      },
    },
  },
}]);
