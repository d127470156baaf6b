import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  archiveCampaign, createCampaign, deleteCampaign, duplicateCampaign, findCampaign, findCampaigns, unarchiveCampaign, updateCampaign,
} from '../../core/campaigns/campaigns';
import { campaignMetrics } from '../../core/campaigns/metrics';
import { CAMPAIGN_STATES } from '../../core/campaigns/model';
import { errors } from '../../core/shared/errors';
import type { CampaignDoc, CampaignState, Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { requirePermission } from './auth';
import {
  campaignCreateSchema, campaignUpdateSchema, duplicateSchema, readCampaignCreate, readCampaignUpdate, readDuplicate,
} from './campaign-input';
import { campaignChangesView, campaignDetail, campaignSummary } from './campaign-views';
import { reply, replyPage } from './envelope';
import { booleanFilter, parseListOptions, type ListSpec } from './list-options';
import { integerParam } from './params';

function states(value: string): CampaignState[] {
  const given = value.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
  const unknown = given.filter((s) => !CAMPAIGN_STATES.includes(s as CampaignState));
  if (given.length === 0 || unknown.length > 0) throw new Error(`Must be one or more of: ${CAMPAIGN_STATES.join(', ')}`);
  return [...new Set(given)] as CampaignState[];
}

function tagList(value: string): string[] {
  const given = value.split(',').map((t) => t.trim()).filter(Boolean);
  if (given.length === 0 || given.length > 20) throw new Error('Must be 1 to 20 tags');
  return given;
}

export const CAMPAIGN_LIST: ListSpec = {
  sortFields: ['name', 'state', 'stateGroup', 'created', 'launchDate'], defaultDir: 'asc', defaultLimit: 20,
  filters: { state: states, tags: tagList, archived: booleanFilter },
  multiValueFilters: ['state', 'tags'],
  filterDescriptions: {
    state: 'One or several states (DRAFT, SCHEDULED, PENDING_APPROVAL, SENDING, SENT, CANCELLED): `filter[state]=DRAFT,SENT`, or the key repeated.',
    tags: 'Campaigns carrying any of these tags: `filter[tags]=a,b`, or the key repeated.',
    archived: '`true`: only archived campaigns; `false` (the default): only the others.',
  },
};

/** The campaign of the path (`:id`), of this account only; else 404. */
export async function loadCampaign(store: Store, ctx: Context): Promise<CampaignDoc> {
  const campaign = await findCampaign(store, ctx.params.account, integerParam(ctx));
  if (!campaign) throw errors.notFound('No such campaign');
  return campaign;
}

/** The detail of one campaign, its metrics read (null until sent). */
export async function detailOf(store: Store, campaign: CampaignDoc) {
  const metrics = await campaignMetrics(store, [campaign]);
  return campaignDetail(campaign, metrics.get(campaign.id) ?? null);
}

const campaignUrl = (campaign: CampaignDoc) => `/v2/${campaign.account}/campaigns/${campaign.id}`;

/** Campaigns (`/v2/{account}/campaigns…`): the resource, and the actions that only change its record. */
export function campaignRoutes(router: Router, store: Store): void {
  router.get('/campaigns', requirePermission('campaigns:list'), async (ctx) => {
    const options = parseListOptions(ctx, CAMPAIGN_LIST);
    const filters = {
      states: options.filters.state as CampaignState[] | undefined,
      tags: options.filters.tags as string[] | undefined,
      archived: (options.filters.archived as boolean | undefined) ?? false,
    };
    const { items, total } = await findCampaigns(store, ctx.params.account, options, filters);
    const metrics = items.length > 0 ? await campaignMetrics(store, items) : new Map();
    replyPage(ctx, options, items.map((c) => campaignSummary(c, metrics.get(c.id) ?? null)), total);
  });

  // 200, as the original answers a campaign create (its list create is 201).
  router.post('/campaigns', requirePermission('campaigns:create'), async (ctx) => {
    const campaign = await createCampaign(store, ctx.params.account, readCampaignCreate(ctx.request.body));
    reply(ctx, { data: campaignDetail(campaign, null), location: campaignUrl(campaign) });
  });

  router.get('/campaigns/:id', requirePermission('campaigns:list'), async (ctx) => {
    reply(ctx, { data: await detailOf(store, await loadCampaign(store, ctx)) });
  });

  router.put('/campaigns/:id', requirePermission('campaigns:update'), async (ctx) => {
    const campaign = await loadCampaign(store, ctx);
    const changes = await updateCampaign(store, campaign, readCampaignUpdate(ctx.request.body));
    reply(ctx, { data: campaignChangesView(campaign.id, changes) });
  });

  router.delete('/campaigns/:id', requirePermission('campaigns:delete'), async (ctx) => {
    await deleteCampaign(store, await loadCampaign(store, ctx));
    reply(ctx, {});
  });

  router.post('/campaigns/:id/duplicate', requirePermission('campaigns:create'), async (ctx) => {
    const campaign = await loadCampaign(store, ctx);
    const copy = await duplicateCampaign(store, campaign, readDuplicate(ctx.request.body).name);
    reply(ctx, { data: campaignDetail(copy, null), location: campaignUrl(copy) });
  });

  router.post('/campaigns/:id/archive', requirePermission('campaigns:update'), async (ctx) => {
    reply(ctx, { data: await detailOf(store, await archiveCampaign(store, await loadCampaign(store, ctx))) });
  });

  router.post('/campaigns/:id/unarchive', requirePermission('campaigns:update'), async (ctx) => {
    reply(ctx, { data: await detailOf(store, await unarchiveCampaign(store, await loadCampaign(store, ctx))) });
  });
}

const onlyDraft = 'In DRAFT everything may change; in any other state only `tags` (a request that would change more is 400 BAD_REQUEST naming the state).';

export const campaignOperations = accountResource('Campaigns', [
  {
    method: 'get', path: '/v2/{account}/campaigns', id: 'listCampaigns', summary: 'Campaigns of the account (reduced records)',
    description: 'Not archived ones unless `filter[archived]=true`. `sortby=stateGroup` orders by where the campaign is in its life: DRAFT, then SCHEDULED and '
      + 'PENDING_APPROVAL, then SENDING, then SENT and CANCELLED. Each record: id, name, description, tags, type, state, paused (while launched), recipients, '
      + 'launchMode, launchDate, created, lastModified, archived, thumbnail, metrics.',
    permissions: ['campaigns:list'], listing: { spec: CAMPAIGN_LIST, q: 'the name' }, status: 200, response: 'A page of campaigns',
  },
  {
    method: 'post', path: '/v2/{account}/campaigns', id: 'createCampaign', summary: 'Create a campaign (DRAFT)',
    description: 'Defaults: type SIMPLE, launchMode NOW, launchDate null, every option `1` (ANALYTICS_CAMPAIGN_NAME: the name), empty include and exclude, '
      + 'no contents. Lists, interests and campaigns named must exist in the account. Answers 200, as the original does.',
    permissions: ['campaigns:create'], body: campaignCreateSchema, status: 200, location: true, response: 'The campaign, whole',
  },
  { method: 'get', path: '/v2/{account}/campaigns/{id}', id: 'getCampaign', summary: 'A campaign, whole', permissions: ['campaigns:list'], status: 200, response: 'The campaign' },
  {
    method: 'put', path: '/v2/{account}/campaigns/{id}', id: 'updateCampaign', summary: 'Change a campaign', description: onlyDraft,
    permissions: ['campaigns:update'], body: campaignUpdateSchema, status: 200, response: 'The id and what changed',
  },
  {
    method: 'delete', path: '/v2/{account}/campaigns/{id}', id: 'deleteCampaign', summary: 'Delete a campaign',
    description: 'DRAFT only (400 otherwise).', permissions: ['campaigns:delete'], status: 200, response: 'Deleted',
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/duplicate', id: 'duplicateCampaign', summary: 'Copy a campaign into a new DRAFT',
    description: 'Everything but the state, launch and figures: description, tags, options, include, exclude and the content with its bodies.',
    permissions: ['campaigns:create'], body: duplicateSchema, status: 200, location: true, response: 'The new campaign, whole',
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/archive', id: 'archiveCampaign', summary: 'Archive a campaign',
    description: 'SENT or CANCELLED only (400 otherwise). `archived` becomes the date; the listing leaves it out unless `filter[archived]=true`.',
    permissions: ['campaigns:update'], status: 200, response: 'The campaign, whole', errors: [400],
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/unarchive', id: 'unarchiveCampaign', summary: 'Take a campaign out of the archive',
    permissions: ['campaigns:update'], status: 200, response: 'The campaign, whole',
  },
]);
