// A campaign's validation and launch, and the actions on a launch under way (stop, cancel, pause,
// resume) or done (resend to the failed). The state rules are core/campaigns/lifecycle.ts's: each
// change is one conditional write, refused with 400 naming the state.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { requireState } from '../../core/campaigns/campaigns';
import { cancelCampaign, launchCampaign, pauseCampaign, resendFailed, resumeCampaign, stopCampaign } from '../../core/campaigns/lifecycle';
import { describeFailures, validateCampaign, type TestName } from '../../core/campaigns/validate';
import { errors } from '../../core/shared/errors';
import type { CampaignDoc } from '../../adapters/store/store';
import type { TaskDeps } from '../../core/tasks/tasks';
import { accountResource } from '../openapi/operation';
import { requirePermission } from './auth';
import { launchSchema, readLaunchDate } from './campaign-input';
import { detailOf, loadCampaign } from './campaigns';
import { reply } from './envelope';
import { taskOrigin } from './task-launch';
import { taskView } from './tasks';

/** Absolute URLs (this request's origin, a proxy's with HERALD_TRUST_PROXY) of where each test's problems are read about or fixed. */
function links(ctx: Context, campaign: CampaignDoc) {
  const base = `${ctx.protocol}://${ctx.host}/v2/${campaign.account}/campaigns/${campaign.id}`;
  const contents = campaign.content ? `${base}/contents/${campaign.content.id}` : `${base}/contents`;
  const moreInfo: Record<TestName, string> = { launchDate: base, recipients: base, contents, account: contents };
  return { validate: `${base}/validate`, moreInfo };
}

/** The launch date a launch uses: the one given, else the campaign's own when it is SCHEDULED, else none (now). */
function effectiveLaunchDate(campaign: CampaignDoc, given: Date | null | undefined): Date | null {
  if (given !== undefined && given !== null) return given;
  return campaign.launchMode === 'SCHEDULED' ? campaign.launchDate : null;
}

export function campaignLaunchRoutes(router: Router, deps: TaskDeps): void {
  const { store } = deps;

  router.get('/campaigns/:id/validate', requirePermission('campaigns:list'), async (ctx) => {
    const campaign = await loadCampaign(store, ctx);
    requireState(campaign, ['DRAFT'], 'be validated');
    const validation = await validateCampaign(store, campaign, { launchDate: effectiveLaunchDate(campaign, undefined), moreInfo: links(ctx, campaign).moreInfo });
    reply(ctx, { data: validation });
  });

  // 200 with the task (the spec's launch answer); a campaign that fails validation stays DRAFT.
  router.post('/campaigns/:id/launch', requirePermission('campaigns:launch'), async (ctx) => {
    const campaign = await loadCampaign(store, ctx);
    const launchDate = effectiveLaunchDate(campaign, readLaunchDate(ctx.request.body));
    requireState(campaign, ['DRAFT'], 'be launched');
    const link = links(ctx, campaign);
    const validation = await validateCampaign(store, campaign, { launchDate, moreInfo: link.moreInfo });
    if (!validation.valid) throw errors.invalidRequest(describeFailures(validation), link.validate);
    const task = await launchCampaign(deps, campaign, { ...await taskOrigin(ctx, store), launchDate });
    reply(ctx, { task: taskView(task) });
  });

  const change = (action: 'stop' | 'cancel' | 'pause' | 'resume', run: typeof stopCampaign) => {
    router.post(`/campaigns/:id/${action}`, requirePermission('campaigns:launch'), async (ctx) => {
      const changed = await run(deps, await loadCampaign(store, ctx));
      reply(ctx, { data: await detailOf(store, changed) });
    });
  };
  change('stop', stopCampaign);
  change('cancel', cancelCampaign);
  change('pause', pauseCampaign);
  change('resume', resumeCampaign);

  router.post('/campaigns/:id/resend-failed', requirePermission('campaigns:launch'), async (ctx) => {
    const campaign = await loadCampaign(store, ctx);
    const task = await resendFailed(deps, campaign, await taskOrigin(ctx, store));
    reply(ctx, { task: taskView(task) });
  });
}

const launchPermission = ['campaigns:launch'];

export const campaignLaunchOperations = accountResource('Campaigns', [
  {
    method: 'get', path: '/v2/{account}/campaigns/{id}/validate', id: 'validateCampaign', summary: 'Whether a DRAFT campaign can be launched, check by check',
    description: '`data`: `{valid, tests: {launchDate, recipients, contents, account}, checks}`; each test `{valid, message, errors: [{code, message, moreInfo}], '
      + 'warnings}`; `checks` holds sender, subject, body, unsubscribe, recipients (with `count`), senderDomain and launchDate, each `{valid, message}`. '
      + 'DRAFT only (400 otherwise).',
    permissions: ['campaigns:list'], status: 200, response: 'The validation',
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/launch', id: 'launchCampaign', summary: 'Launch a DRAFT campaign',
    description: 'Validates it (as …/validate); a failure is 400 `INVALID_REQUEST` with `moreInfo` (the validation\'s URL) and the campaign stays DRAFT. '
      + 'Otherwise it becomes SCHEDULED and a CAMPAIGN_LAUNCH task (QUEUED) sends it at `launchDate`.',
    permissions: launchPermission, body: launchSchema, status: 200, response: 'The task, in `task`',
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/stop', id: 'stopCampaign', summary: 'Stop a scheduled campaign: back to DRAFT',
    description: 'SCHEDULED or PENDING_APPROVAL only (400 otherwise); its launch task is cancelled and nothing was sent.', permissions: launchPermission, status: 200, response: 'The campaign', errors: [400],
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/cancel', id: 'cancelCampaign', summary: 'Cancel a launched campaign',
    description: 'SCHEDULED, PENDING_APPROVAL or SENDING → CANCELLED at once: nothing more is sent (400 in another state).', permissions: launchPermission, status: 200, response: 'The campaign', errors: [400],
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/pause', id: 'pauseCampaign', summary: 'Pause a launch under way',
    description: 'The state stays; `paused` becomes true and no further page of recipients is sent until resumed (400 when no launch is under way).', permissions: launchPermission, status: 200, response: 'The campaign', errors: [400],
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/resume', id: 'resumeCampaign', summary: 'Resume a paused launch',
    description: '400 when it is not paused.', permissions: launchPermission, status: 200, response: 'The campaign', errors: [400],
  },
  {
    method: 'post', path: '/v2/{account}/campaigns/{id}/resend-failed', id: 'resendCampaignFailed', summary: 'Send a SENT campaign again to the recipients whose message failed',
    description: '400 unless the campaign is SENT.', permissions: launchPermission, status: 200, response: 'The task, in `task`', errors: [400],
  },
]);
