// A campaign's reports: its figures with the original's keys (`/metrics`), its recipients'
// actions of one type (`/actions`), both counted by core/campaigns/metrics.ts from the events, and
// the console's report (`/report`: the metrics with a timeline, top links, bounces and unsubscribes).
import type Router from '@koa/router';
import { errors, fieldError } from '../../core/shared/errors';
import { ACTION_TYPES, campaignActions, campaignReport, type ActionType } from '../../core/campaigns/metrics';
import { campaignReportData, HOURLY_HOURS, LATEST_ROWS, TOP_LINKS } from '../../core/campaigns/report';
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

  router.get('/campaigns/:id/report', requirePermission('campaigns:list'), async (ctx) => {
    reply(ctx, { data: await campaignReportData(store, await loadCampaign(store, ctx)) });
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
    method: 'get', path: '/v2/{account}/campaigns/{id}/report', id: 'getCampaignReport', summary: 'A campaign\'s report: metrics, timeline, top links, bounces, unsubscribes',
    description: '`metrics`: the same as GET …/metrics. `timeline`: `[{time, sent, opened, clicked, openedT, clickedT}]` in UTC buckets, hourly from the hour '
      + `of the first sent message for ${HOURLY_HOURS} hours, then daily (from 00:00 UTC, the first day from where the hourly buckets end; \`time\` is a bucket\'s start), empty buckets `
      + 'included up to the last event; opened/clicked are first opens and clicks (they add up to the metrics), openedT/clickedT every one. '
      + `\`topLinks\`: the ${TOP_LINKS} most clicked links \`[{url, clicks, uniqueClicks}]\` (uniqueClicks: messages with a click on it). `
      + `\`bounces\`: the latest ${LATEST_ROWS} \`[{email, time, type (hard|soft), reason}]\`; \`unsubscribes\`: the latest ${LATEST_ROWS} \`[{email, time, reason}]\` `
      + '(reason spam_fbl: a complaint). Before sending began: zero metrics and empty lists.',
    permissions: ['campaigns:list'], status: 200, response: '`{metrics, timeline, topLinks, bounces, unsubscribes}`',
  },
  {
    method: 'get', path: '/v2/{account}/campaigns/{id}/actions', id: 'listCampaignActions', summary: 'A campaign\'s recipients\' actions of one type',
    permissions: ['campaigns:list'], listing: { spec: ACTIONS_LIST, q: 'the recipient\'s email' }, status: 200, response: 'A page of actions',
  },
]);
