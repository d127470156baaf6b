import type Router from '@koa/router';
import type { Context } from 'koa';
import { activityPage, ACTIVITY_VIEWS } from '../../core/tracking/activity';
import { TRACK_TYPES } from '../../core/tracking/events';
import type { Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { ACTIVITY_DEFAULT_LIMIT, parseActivityQuery } from './activity-query';
import { requirePermission } from './auth';
import { reply } from './envelope';
import { MAX_LIMIT } from './list-options';
import { accountRetention } from '../../core/retention/setting';
import { retainedSince } from '../../core/retention/policy';
import { retentionDays } from './retention';

/**
 * The account's events (`GET /v2/{account}/activity`), newest first, paged by cursor; `retention`
 * says how far back they reach (the events of messages sent before `since` are pruned: core/retention/).
 */
export function activityRoutes(router: Router, store: Store): void {
  router.get('/activity', requirePermission('activity:list'), async (ctx) => {
    const { request, linkQuery } = parseActivityQuery(ctx);
    const [page, retention] = await Promise.all([activityPage(store, ctx.params.account, request), accountRetention(store, ctx.params.account)]);
    reply(ctx, {
      data: page.events,
      paging: { next: page.next ? nextLink(ctx, { ...linkQuery, cursor: page.next }) : '', total: page.total, results: page.events.length },
      extra: { retention: { days: retention.days, since: retainedSince(new Date(), retention.days).toISOString() } },
    });
  });
}

/**
 * The next page's absolute link: this request's origin and path, the same filters (a gtrel
 * resolved to the gt it meant, so the window does not slide while the client pages), view,
 * limit, and the cursor. Behind a reverse proxy the origin is the proxy's when Koa's
 * `app.proxy` is on (X-Forwarded-Proto and X-Forwarded-Host).
 */
function nextLink(ctx: Context, query: Record<string, string>): string {
  // Not ctx.origin: Koa 3 gives there the request's Origin header.
  return `${ctx.protocol}://${ctx.host}${ctx.path}?${new URLSearchParams(query).toString()}`;
}

const trackType = { type: 'string', enum: [...TRACK_TYPES] } as const;
const text = { type: 'string' } as const;
const instant = { type: 'string', format: 'date-time' } as const;

/** The general fields (the `default` view); `full` adds each type's own, `simple` keeps only `email`. */
const eventSchema = {
  type: 'object',
  description: 'An event: `full` gives every field of its type (see the spec\'s Events), `default` the general fields below, `simple` only `email`.',
  properties: {
    timestamp: instant, sent_timestamp: instant,
    hour_of_day: { type: 'integer', minimum: 0, maximum: 23 }, day_of_week: { type: 'integer', minimum: 1, maximum: 7 },
    track_id: text, track_type: trackType, batch_id: text, mail_id: text, mail_type: text, account: text, email: text, domain: text,
    tags: { type: 'array', items: text }, custom_args: { type: 'object', additionalProperties: text }, mta: text,
  },
} as const;

const activityEnvelope = {
  type: 'object',
  required: ['href', 'success', 'data', 'paging', 'retention'],
  properties: {
    href: text,
    success: { const: true },
    data: { type: 'array', items: eventSchema },
    paging: {
      type: 'object',
      required: ['next', 'total', 'results'],
      properties: {
        next: { type: 'string', description: 'The next page\'s absolute link, to follow as given; empty on the last page.' },
        total: { type: 'integer', minimum: 0, description: 'Events matching the filters when paging began.' },
        results: { type: 'integer', minimum: 0, description: 'Events in this page.' },
      },
    },
    retention: {
      type: 'object',
      required: ['days', 'since'],
      description: 'How far back the activity reaches (Herald\'s addition): the account keeps `days` days of message history, '
        + 'so it holds every event of the messages sent since `since`; those of messages sent before it are removed within the hour.',
      properties: { days: retentionDays, since: { ...instant, description: 'Now less `days` days.' } },
    },
  },
} as const;

export const activityOperations = accountResource('Activity', [{
  method: 'get', path: '/v2/{account}/activity', id: 'listActivity', summary: 'The account\'s events, newest first',
  description: 'Pages are cut by cursor: follow `paging.next` until it is empty. Events stored while you page are newer than the '
    + 'cursor and do not shift the pages still to read (nothing skipped, nothing repeated); they show on a new first page. '
    + 'Filters may be written with dots (`filters.track_type`) or brackets (`filters[track_type]`). '
    + '`retention.since` says how far back the events reach: those of messages sent earlier are pruned.',
  permissions: ['activity:list'], status: 200, response: 'A page of events', responseSchema: activityEnvelope,
  query: [
    { name: 'filters.track_type', allowEmptyValue: true, schema: trackType, description: 'Only events of this type; empty means every type.' },
    { name: 'filters.batch_id', allowEmptyValue: true, schema: { type: 'string', maxLength: 200 }, description: 'Only events of this send batch.' },
    {
      name: 'filters.timestamp.gt', allowEmptyValue: true, schema: instant,
      description: 'Only events after this instant: ISO 8601 with `Z` or an offset. Not with `filters.timestamp.gtrel`.',
    },
    {
      name: 'filters.timestamp.gtrel', allowEmptyValue: true, schema: { type: 'string', pattern: '^now-\\d{1,9}[smhdw]$' },
      description: 'Only events after a time relative to now: `now-<n><unit>`, unit `s`, `m`, `h`, `d` or `w` (`now-1h`, `now-5d`), '
        + 'at most ten years back. Not with `filters.timestamp.gt`; `paging.next` carries the instant it meant as `filters.timestamp.gt`.',
    },
    { name: 'q', allowEmptyValue: true, schema: { type: 'string', maxLength: 200 }, description: 'The recipient\'s address, ignoring letter case; `*` matches anything.' },
    {
      name: 'view', allowEmptyValue: true, schema: { type: 'string', enum: [...ACTIVITY_VIEWS], default: 'default' },
      description: '`full`: every field of the event; `default`: the general fields; `simple`: only `email`.',
    },
    { name: 'limit', allowEmptyValue: true, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: ACTIVITY_DEFAULT_LIMIT }, description: 'Events per page.' },
    { name: 'cursor', allowEmptyValue: true, schema: text, description: 'Where the page starts; set by `paging.next`, not written by hand.' },
  ],
}]);
