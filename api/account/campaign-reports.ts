// A campaign's reports: its figures with the original's keys (`/metrics`) and its recipients'
// actions of one type (`/actions`), both counted by core/campaigns/metrics.ts from the events.
import type Router from '@koa/router';
import { errors, fieldError } from '../../core/shared/errors';
import { ACTION_TYPES, campaignActions, campaignReport, type ActionType } from '../../core/campaigns/metrics';
import type { Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { requirePermission } from './auth';
import { loadCampaign } from './campaigns';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';

function actionType(value: string): ActionType {
  const type = ACTION_TYPES.find((t) => t === value.trim().toUpperCase());
  if (!type) throw new Error(`Must be one of: ${ACTION_TYPES.join(', ')}`);
  return type;
}

export const ACTIONS_LIST: ListSpec = {
  sortFields: ['date'], defaultDir: 'desc', defaultLimit: 20,
  filters: { type: actionType },
  filterDescriptions: { type: `Required: ${ACTION_TYPES.join(', ')}. ALL only with \`q\` (an email search).` },
};

export function campaignReportRoutes(router: Router, store: Store): void {
  router.get('/campaigns/:id/metrics', requirePermission('campaigns:list'), async (ctx) => {
    reply(ctx, { data: await campaignReport(store, await loadCampaign(store, ctx)) });
  });

  router.get('/campaigns/:id/actions', requirePermission('campaigns:list'), async (ctx) => {
    const options = parseListOptions(ctx, ACTIONS_LIST);
    const type = options.filters.type as ActionType | undefined;
    if (!type) throw errors.validation({ 'filter[type]': fieldError('required', `Required: one of ${ACTION_TYPES.join(', ')}`) });
    if (type === 'ALL' && !options.qText) throw errors.validation({ 'filter[type]': fieldError('invalid_value', 'ALL needs q (an email search)') });
    const campaign = await loadCampaign(store, ctx);
    const { items, total } = await campaignActions(store, campaign, { type, q: options.qText, offset: options.offset, limit: options.limit, sortdir: options.sortdir });
    replyPage(ctx, options, items, total);
  });
}

export const campaignReportOperations = accountResource('Campaigns', [
  {
    method: 'get', path: '/v2/{account}/campaigns/{id}/metrics', id: 'getCampaignMetrics', summary: 'A campaign\'s figures, with the original\'s keys',
    permissions: ['campaigns:list'], status: 200, response: 'sent, sentP, delivered, …, sharedClicked (P: percent)',
  },
  {
    method: 'get', path: '/v2/{account}/campaigns/{id}/actions', id: 'listCampaignActions', summary: 'A campaign\'s recipients\' actions of one type',
    permissions: ['campaigns:list'], listing: { spec: ACTIONS_LIST, q: 'the recipient\'s email' }, status: 200, response: 'A page of actions',
  },
]);
