import type Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Context } from 'koa';
import {
  activateAutomation, createAutomation, deactivateAutomation, deleteAutomation, findAutomation, findAutomations, updateAutomation,
} from '../../core/automations/automations';
import { readAutomationInput, type AutomationFields } from '../../core/automations/input';
import { stopAutomationRuns } from '../../core/automations/lifecycle';
import { automationMessageStats, findAutomationRuns, RUN_STATUSES, type RunStatus } from '../../core/automations/run-list';
import { automationChangesView, automationDetail, automationRow } from '../../core/automations/views';
import { errors } from '../../core/shared/errors';
import type { AutomationDoc, Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { requirePermission } from './auth';
import { automationCreateSchema, automationUpdateSchema, readAutomationCreate, readAutomationUpdate } from './automation-input';
import { reply, replyPage } from './envelope';
import { booleanFilter, parseListOptions, type ListSpec } from './list-options';
import { integerParam } from './params';

export const AUTOMATION_LIST: ListSpec = {
  sortFields: ['name', 'created'], defaultDir: 'asc', defaultLimit: 20,
  filters: { enabled: booleanFilter },
  filterDescriptions: { enabled: '`true`: only enabled automations; `false`: only disabled ones.' },
};

export const RUN_LIST: ListSpec = {
  sortFields: ['started'], defaultDir: 'desc', defaultLimit: 20,
  filters: {
    status: (value) => {
      const status = RUN_STATUSES.find((s) => s === value.trim().toLowerCase());
      if (!status) throw new Error(`Must be one of: ${RUN_STATUSES.join(', ')}`);
      return status;
    },
  },
  filterDescriptions: { status: RUN_STATUSES.map((s) => `\`${s}\``).join(', ') },
};

/** The automation of the path (`:id`), of this account only; else 404. */
async function loadAutomation(store: Store, ctx: Context): Promise<AutomationDoc> {
  const automation = await findAutomation(store, ctx.params.account, integerParam(ctx));
  if (!automation) throw errors.notFound('No such automation');
  return automation;
}

/** Automations (`/v2/{account}/automations…`). Deactivating or deleting one stops its runs, after the record changed. */
export function automationRoutes(router: Router, deps: { store: Store; temporal: Client }): void {
  const { store } = deps;

  router.get('/automations', requirePermission('automations:list'), async (ctx) => {
    const options = parseListOptions(ctx, AUTOMATION_LIST);
    const { items, total } = await findAutomations(store, ctx.params.account, options, { enabled: options.filters.enabled as boolean | undefined });
    replyPage(ctx, options, items.map(automationRow), total);
  });

  router.post('/automations', requirePermission('automations:create'), async (ctx) => {
    // The create schema requires name and trigger, so the fields read have both.
    const fields = await readAutomationInput(readAutomationCreate(ctx.request.body)) as Partial<AutomationFields> & Pick<AutomationFields, 'name' | 'trigger'>;
    const automation = await createAutomation(store, ctx.params.account, fields);
    reply(ctx, { status: 201, data: automationDetail(automation), location: `/v2/${automation.account}/automations/${automation.id}` });
  });

  router.get('/automations/:id', requirePermission('automations:list'), async (ctx) => {
    const automation = await loadAutomation(store, ctx);
    reply(ctx, { data: { ...automationDetail(automation), messageStats: await automationMessageStats(store, automation) } });
  });

  router.get('/automations/:id/runs', requirePermission('automations:list'), async (ctx) => {
    const automation = await loadAutomation(store, ctx);
    const options = parseListOptions(ctx, RUN_LIST);
    const { items, total } = await findAutomationRuns(store, automation, { ...options, status: options.filters.status as RunStatus | undefined });
    replyPage(ctx, options, items, total);
  });

  router.put('/automations/:id', requirePermission('automations:update'), async (ctx) => {
    const automation = await loadAutomation(store, ctx);
    const changes = await updateAutomation(store, automation, await readAutomationInput(readAutomationUpdate(ctx.request.body)));
    reply(ctx, { data: automationChangesView(automation.id, changes) });
  });

  router.delete('/automations/:id', requirePermission('automations:delete'), async (ctx) => {
    const automation = await loadAutomation(store, ctx);
    await deleteAutomation(store, automation);
    await stopAutomationRuns(deps, automation.account, automation.id);
    reply(ctx, {});
  });

  router.post('/automations/:id/activate', requirePermission('automations:update'), async (ctx) => {
    reply(ctx, { data: automationDetail(await activateAutomation(store, await loadAutomation(store, ctx))) });
  });

  // The runs are stopped even when it was disabled already: a repeat finishes a stop that failed.
  router.post('/automations/:id/deactivate', requirePermission('automations:update'), async (ctx) => {
    const automation = await deactivateAutomation(store, await loadAutomation(store, ctx));
    await stopAutomationRuns(deps, automation.account, automation.id);
    reply(ctx, { data: automationDetail(automation) });
  });
}

const steps = 'Steps: `{type: "email", subject, from, fromName?, replyTo?, html | mjml, text?}` (subject, html and text are templates of the dialect, '
  + 'checked when saved; MJML is compiled when saved) and `{type: "wait", duration}` (ISO 8601, 1 second to 365 days; answered with its `seconds`).';

export const automationOperations = accountResource('Automations', [
  {
    method: 'get', path: '/v2/{account}/automations', id: 'listAutomations', summary: 'Automations of the account (rows)',
    description: 'Each row: id (a string), name, comments, trigger `{type, key}`, enabled, tags, options `{types}`, stats `{triggered, exited, failed, active, '
      + 'aborted, completed, converted, converted_amount}`, created, lastModified. `active` = triggered − completed − exited − failed; aborted and converted* are 0.',
    permissions: ['automations:list'], listing: { spec: AUTOMATION_LIST, q: 'the name' }, status: 200, response: 'A page of automations',
  },
  {
    method: 'post', path: '/v2/{account}/automations', id: 'createAutomation', summary: 'Create an automation (disabled)',
    description: `${steps} Created with enabled false: activate it with POST …/activate.`,
    permissions: ['automations:create'], body: automationCreateSchema, status: 201, location: true, response: 'The automation, whole',
  },
  {
    method: 'get', path: '/v2/{account}/automations/{id}', id: 'getAutomation', summary: 'An automation, whole',
    description: 'The row with its steps, `activation` (how many times it was activated), `activated` and `deactivated`, and `messageStats` '
      + '`{sent, opened, clicked, bounced, unsubscribed}`: events of its messages (every run\'s); opened and clicked count recipients (first opens and clicks).',
    permissions: ['automations:list'], status: 200, response: 'The automation',
  },
  {
    method: 'get', path: '/v2/{account}/automations/{id}/runs', id: 'listAutomationRuns', summary: 'An automation\'s runs, newest first',
    description: 'Each run (one per trigger event): `id` (the event\'s id), `contact` (email), `started`, `ended` (or null), `status` (`running`, `completed`, '
      + '`failed`, `cancelled`: stopped by a deactivation), `step` (index of the step it is at: the step after its last email sent, a failed run\'s failed email, '
      + 'a completed run\'s last step), `stepType` (`email` or `wait`), `steps` (how many), `reason` (why it failed or stopped, when known) and '
      + '`workflowId` (its Temporal workflow).',
    permissions: ['automations:list'], listing: { spec: RUN_LIST, q: 'the contact\'s email' }, status: 200, response: 'A page of runs',
  },
  {
    method: 'put', path: '/v2/{account}/automations/{id}', id: 'updateAutomation', summary: 'Change an automation',
    description: `Changes the fields given (steps given replace them all). Allowed while enabled: runs under way keep the steps they began with. ${steps}`,
    permissions: ['automations:update'], body: automationUpdateSchema, status: 200, response: 'The id and what changed',
  },
  {
    method: 'delete', path: '/v2/{account}/automations/{id}', id: 'deleteAutomation', summary: 'Delete an automation and stop its runs',
    permissions: ['automations:delete'], status: 200, response: 'Deleted',
  },
  {
    method: 'post', path: '/v2/{account}/automations/{id}/activate', id: 'activateAutomation', summary: 'Enable an automation',
    description: 'Needs at least one email step (400 VALIDATION_ERROR on `steps` otherwise). `activation` grows by one and `activated` is now; '
      + 'an enabled automation is answered unchanged.',
    permissions: ['automations:update'], status: 200, response: 'The automation, whole', errors: [400],
  },
  {
    method: 'post', path: '/v2/{account}/automations/{id}/deactivate', id: 'deactivateAutomation', summary: 'Disable an automation and stop its runs',
    description: 'Runs waiting stop at once; none begun before fires again, even after a new activation. A disabled automation is answered unchanged.',
    permissions: ['automations:update'], status: 200, response: 'The automation, whole',
  },
]);
