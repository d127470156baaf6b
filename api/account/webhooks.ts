import type Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Context } from 'koa';
import { errors } from '../../core/shared/errors';
import { TRACK_TYPES } from '../../core/tracking/events';
import type { Store, WebhookDoc } from '../../adapters/store/store';
import { deliveryView, findDeliveries } from '../../core/webhooks/deliveries';
import { findDiscarded } from '../../core/webhooks/discards';
import {
  createEndpoint, deleteEndpoint, endpointView, findEndpoint, findEndpoints, rotateSecret, updateEndpoint, type EndpointInput,
} from '../../core/webhooks/endpoints';
import { startWebhookDelivery } from '../../core/webhooks/lifecycle';
import { createPoster } from '../../core/webhooks/post';
import { MAX_REPLAY_EVENTS, replayDiscarded } from '../../core/webhooks/replay';
import { MAX_URL_LENGTH } from '../../core/webhooks/url-policy';
import { accountResource } from '../openapi/operation';
import { asBody, validator } from '../validation';
import { requirePermission } from './auth';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';
import { integerParam } from './params';

export interface WebhookApiDeps {
  store: Store; temporal: Client; taskQueue: string;
  /** Webhook URLs on private and loopback addresses allowed (HERALD_WEBHOOK_ALLOW_PRIVATE). */
  webhookAllowPrivate: boolean;
}

const url = { type: 'string', minLength: 1, maxLength: MAX_URL_LENGTH, description: 'An http or https URL on a public address.' } as const;
const events = {
  type: 'array', minItems: 1, maxItems: TRACK_TYPES.length, items: { type: 'string', enum: [...TRACK_TYPES] },
  description: 'Track types to send (all by default). In a form: `events[]=track.mail.sent&events[]=track.mail.clicked`, or one value with commas.',
} as const;
const enabled = {
  type: ['boolean', 'string'], enum: [true, false, 'true', 'false', '1', '0'], description: 'Whether events are sent (default true).',
} as const;
const createSchema = { type: 'object', additionalProperties: false, required: ['url'], properties: { url, events, enabled } } as const;
const updateSchema = { type: 'object', additionalProperties: false, properties: { url, events, enabled } } as const;
interface RawInput { url?: string; events?: string[]; enabled?: boolean | string }
const validateCreate = validator<RawInput>(createSchema);
const validateUpdate = validator<RawInput>(updateSchema);
const replaySchema = {
  type: 'object', additionalProperties: false, required: ['track_ids'],
  properties: {
    track_ids: {
      type: 'array', minItems: 1, maxItems: MAX_REPLAY_EVENTS, items: { type: 'string', minLength: 1, maxLength: 100 },
      description: `Discarded events of this endpoint (GET …/discarded), 1 to ${MAX_REPLAY_EVENTS}.`,
    },
  },
} as const;
const validateReplay = validator<{ track_ids: string[] }>(replaySchema);

/** A form sends every value as a string: `events=a,b` and `enabled=false` read like their JSON forms. */
function fromForm(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body ?? {};
  const raw = asBody({ ...(body as Record<string, unknown>) }, body);
  if (typeof raw.events === 'string') raw.events = raw.events.split(',').map((t) => t.trim()).filter((t) => t !== '');
  return raw;
}

function toInput(raw: RawInput): Partial<EndpointInput> {
  return {
    url: raw.url,
    events: raw.events,
    enabled: raw.enabled === undefined ? undefined : raw.enabled === true || raw.enabled === 'true' || raw.enabled === '1',
  };
}

const ENDPOINTS: ListSpec = { sortFields: ['id'], defaultDir: 'asc', defaultLimit: 20 };
const DELIVERIES: ListSpec = {
  sortFields: ['time'], defaultDir: 'desc', defaultLimit: 20,
  filters: {
    outcome: (value) => {
      if (!['failed', 'delivered', 'discarded', 'replayed'].includes(value)) throw new Error('Must be failed, delivered, discarded or replayed');
      return value;
    },
  },
  filterDescriptions: { outcome: '`failed`, `delivered`, `discarded` or `replayed`' },
};
const DISCARDED: ListSpec = { sortFields: ['discarded'], defaultDir: 'desc', defaultLimit: 20 };

async function loadEndpoint(store: Store, ctx: Context): Promise<WebhookDoc> {
  const endpoint = await findEndpoint(store, ctx.params.account, integerParam(ctx));
  if (!endpoint) throw errors.notFound('No such webhook');
  return endpoint;
}

/** Webhook endpoints (`/v2/{account}/webhooks…`) and what became of their failed deliveries. */
export function webhookRoutes(router: Router, deps: WebhookApiDeps): void {
  const { store } = deps;
  const allowPrivate = deps.webhookAllowPrivate;
  /** The workflow starts now; if Temporal cannot take it, the next sweep (within a minute) starts it. */
  const startDelivery = async (ctx: Context, endpoint: WebhookDoc) => {
    try {
      await startWebhookDelivery(deps.temporal, deps.taskQueue, endpoint.account, endpoint.id);
    } catch (error) {
      ctx.state.log?.warn({ endpointId: endpoint.id, error: (error as Error).message }, 'webhook delivery not started: the sweeper will start it');
    }
  };

  router.get('/webhooks', requirePermission('webhooks:list'), async (ctx) => {
    const options = parseListOptions(ctx, ENDPOINTS);
    const { items, total } = await findEndpoints(store, ctx.params.account, options);
    replyPage(ctx, options, items.map((doc) => endpointView(doc)), total);
  });

  router.post('/webhooks', requirePermission('webhooks:create'), async (ctx) => {
    const input = toInput(validateCreate(fromForm(ctx.request.body)));
    const endpoint = await createEndpoint(store, ctx.params.account, input as EndpointInput, allowPrivate);
    if (endpoint.enabled) await startDelivery(ctx, endpoint);
    reply(ctx, { status: 201, data: endpointView(endpoint, true), location: `/v2/${endpoint.account}/webhooks/${endpoint.id}` });
  });

  router.get('/webhooks/:id', requirePermission('webhooks:list'), async (ctx) => {
    reply(ctx, { data: endpointView(await loadEndpoint(store, ctx)) });
  });

  router.put('/webhooks/:id', requirePermission('webhooks:update'), async (ctx) => {
    const current = await loadEndpoint(store, ctx);
    const { endpoint, enabledNow } = await updateEndpoint(store, current, toInput(validateUpdate(fromForm(ctx.request.body))), allowPrivate);
    if (enabledNow) await startDelivery(ctx, endpoint);
    reply(ctx, { data: endpointView(endpoint) });
  });

  router.delete('/webhooks/:id', requirePermission('webhooks:delete'), async (ctx) => {
    if (!(await deleteEndpoint(store, ctx.params.account, integerParam(ctx)))) throw errors.notFound('No such webhook');
    reply(ctx, {});
  });

  router.post('/webhooks/:id/rotate-secret', requirePermission('webhooks:update'), async (ctx) => {
    reply(ctx, { data: endpointView(await rotateSecret(store, await loadEndpoint(store, ctx)), true) });
  });

  router.get('/webhooks/:id/deliveries', requirePermission('webhooks:list'), async (ctx) => {
    const endpoint = await loadEndpoint(store, ctx);
    const options = parseListOptions(ctx, DELIVERIES);
    const { items, total } = await findDeliveries(store, endpoint, options);
    replyPage(ctx, options, items.map(deliveryView), total);
  });

  router.get('/webhooks/:id/discarded', requirePermission('webhooks:list'), async (ctx) => {
    const endpoint = await loadEndpoint(store, ctx);
    const options = parseListOptions(ctx, DISCARDED);
    const { items, total } = await findDiscarded(store, endpoint, options);
    replyPage(ctx, options, items, total);
  });

  // Replays are rare: a poster of their own (its connections pass the URL policy's check), closed after.
  router.post('/webhooks/:id/replay', requirePermission('webhooks:update'), async (ctx) => {
    const endpoint = await loadEndpoint(store, ctx);
    const { track_ids: trackIds } = validateReplay(ctx.request.body ?? {});
    const poster = createPoster({ allowPrivate });
    try {
      reply(ctx, { data: await replayDiscarded(store, poster, endpoint, trackIds) });
    } finally {
      poster.close();
    }
  });
}

const view = 'The endpoint: `{id, url, events, enabled}`';
export const webhookOperations = accountResource('Webhooks', [
  {
    method: 'get', path: '/v2/{account}/webhooks', id: 'listWebhooks', summary: 'Webhook endpoints of the account', permissions: ['webhooks:list'],
    listing: { spec: ENDPOINTS, q: 'the URL' }, status: 200, response: 'A page of endpoints (without their secrets)',
  },
  {
    method: 'post', path: '/v2/{account}/webhooks', id: 'createWebhook', summary: 'Create a webhook endpoint',
    description: 'Events stored from now on are POSTed to `url` as JSON arrays, signed with `Herald-Signature` (see the README). '
      + 'URLs on private, loopback, link-local and other non-public addresses are refused (VALIDATION_ERROR) unless HERALD_WEBHOOK_ALLOW_PRIVATE=1. '
      + 'The answer holds the signing `secret`: it is never shown again (rotate it to get a new one).',
    permissions: ['webhooks:create'], body: createSchema, status: 201, location: true, response: `${view}, with its \`secret\``,
  },
  { method: 'get', path: '/v2/{account}/webhooks/{id}', id: 'getWebhook', summary: 'A webhook endpoint', permissions: ['webhooks:list'], status: 200, response: view },
  {
    method: 'put', path: '/v2/{account}/webhooks/{id}', id: 'updateWebhook', summary: 'Change a webhook endpoint',
    description: 'Any of `url`, `events`, `enabled`. Disabling stops delivery (retries still waiting are discarded); '
      + 're-enabling sends the events stored from then on, not those stored while it was disabled.',
    permissions: ['webhooks:update'], body: updateSchema, status: 200, response: view,
  },
  {
    method: 'delete', path: '/v2/{account}/webhooks/{id}', id: 'deleteWebhook', summary: 'Delete a webhook endpoint, with its deliveries log',
    permissions: ['webhooks:delete'], status: 200, response: 'Deleted',
  },
  {
    method: 'post', path: '/v2/{account}/webhooks/{id}/rotate-secret', id: 'rotateWebhookSecret', summary: 'Give the endpoint a new signing secret',
    description: 'Requests signed from now on (within a few seconds) use the new secret; the old one stops working.',
    permissions: ['webhooks:update'], status: 200, response: `${view}, with its new \`secret\``,
  },
  {
    method: 'get', path: '/v2/{account}/webhooks/{id}/deliveries', id: 'listWebhookDeliveries', summary: 'Every request made to the endpoint, and what became of failed ones',
    description: 'One entry per POST: `delivered` (answered 2xx, attempt 1 or the retry\'s 2), `failed` (with `retry_at` when its one retry a minute later '
      + 'is due), `replayed` (a replay answered 2xx; a replay\'s entries have `replay: true`), and one per discard of a batch (`discarded`: the events '
      + 'are dropped, see …/discarded). Each has `time`, `outcome`, `attempt`, `status` (HTTP status or null), `error`, '
      + '`events` (count) and `track_ids`. Kept 30 days.',
    permissions: ['webhooks:list'], listing: { spec: DELIVERIES, q: 'a track_id of the batch' }, status: 200, response: 'A page of entries, newest first',
  },
  {
    method: 'get', path: '/v2/{account}/webhooks/{id}/discarded', id: 'listWebhookDiscarded', summary: 'Events discarded for the endpoint and not replayed since',
    description: 'Each: `track_id`, `type` (track type), `time` (the event\'s), `discarded` (when), `payload` (the event exactly as it is POSTed; '
      + 'null if the event is no longer stored). Kept 30 days, like the deliveries log; a successful replay removes them.',
    permissions: ['webhooks:list'], listing: { spec: DISCARDED, q: 'a track_id' }, status: 200, response: 'A page of discarded events, newest discard first',
  },
  {
    method: 'post', path: '/v2/{account}/webhooks/{id}/replay', id: 'replayWebhookEvents', summary: 'POST discarded events to the endpoint again, now',
    description: `The events of \`track_ids\` (1 to ${MAX_REPLAY_EVENTS}, each a discarded event of this endpoint, else VALIDATION_ERROR naming the others `
      + 'and nothing is sent) go in one request to the endpoint\'s current URL, signed with its current secret like every delivery '
      + '(`Herald-Attempt: replay`). Answer: `{delivered, status, error, events}`. The request is in the deliveries log (`replayed` on 2xx, '
      + 'else `failed`, with `replay: true`); delivered events leave the discarded list, the others stay. A disabled endpoint: 400 BAD_REQUEST (nothing sent).',
    permissions: ['webhooks:update'], body: replaySchema, status: 200, response: '`{delivered: boolean, status: number | null, error: string | null, events: number}`',
  },
]);
