import type Router from '@koa/router';
import type { Context } from 'koa';
import { exportFileName } from '../../core/contacts/export';
import { errors, fieldError } from '../../core/shared/errors';
import { findFile, openFile } from '../../adapters/store/files';
import type { ContactState } from '../../adapters/store/store';
import type { TaskDeps } from '../../core/tasks/tasks';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { integerParam } from './params';
import { replyWithNewTask } from './task-launch';

const STATES = ['ACTIVE', 'UNSUBSCRIBED', 'BOUNCED', 'COMPLAINED'];
const id = { type: ['integer', 'string', 'null'], pattern: '^\\d{1,9}$', minimum: 1 } as const;
const exportSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    listId: id,
    interestId: id,
    state: { type: ['string', 'null'], description: `One of ${STATES.join(', ')}, in any letter case` },
  },
} as const;
const validateExport = validator<{ listId?: number | string | null; interestId?: number | string | null; state?: string | null }>(exportSchema);

const optionalId = (value: number | string | null | undefined) => (value === undefined || value === null || value === '' ? null : Number(value));

/**
 * Exports (`POST /contacts/export`, `/lists/{id}/export`, `/interests/{id}/export`): a
 * CONTACT_EXPORT_TASK that writes a CSV file, then `GET /exports/{fileName}` to download it.
 */
export function contactExportRoutes(router: Router, deps: TaskDeps): void {
  const { store } = deps;
  const startExport = async (ctx: Context, selection: { listId: number | null; interestId: number | null; state: ContactState | null }, name: string) => {
    const account = ctx.params.account as string;
    const problems: Record<string, ReturnType<typeof fieldError>> = {};
    if (selection.listId !== null && !(await store.lists.findOne({ _id: `${account}:${selection.listId}`, account }))) {
      problems.listId = fieldError('invalid_value', `No list with id ${selection.listId}`);
    }
    if (selection.interestId !== null && !(await store.interests.findOne({ _id: `${account}:${selection.interestId}`, account }))) {
      problems.interestId = fieldError('invalid_value', `No interest with id ${selection.interestId}`);
    }
    if (Object.keys(problems).length > 0) throw errors.validation(problems);
    const at = new Date();
    await replyWithNewTask(ctx, deps, {
      type: 'CONTACT_EXPORT_TASK', name: `Export ${name}`, parameters: (taskId) => ({ ...selection, fileName: exportFileName(name, at, taskId) }),
    });
  };

  router.post('/contacts/export', requirePermission('contacts:list'), async (ctx) => {
    const body = validateExport(ctx.request.body ?? {});
    const state = typeof body.state === 'string' && body.state !== '' ? body.state.toUpperCase() : null;
    if (state !== null && !STATES.includes(state)) throw errors.validation({ state: fieldError('invalid_value', `Must be one of ${STATES.join(', ')}`) });
    await startExport(ctx, { listId: optionalId(body.listId), interestId: optionalId(body.interestId), state: state as ContactState | null }, 'contacts');
  });

  for (const kind of ['lists', 'interests'] as const) {
    router.post(`/${kind}/:id/export`, requirePermission('contacts:list'), async (ctx) => {
      const memberId = integerParam(ctx);
      const exists = !Number.isNaN(memberId) && (await store[kind].findOne({ _id: `${ctx.params.account}:${memberId}`, account: ctx.params.account }));
      if (!exists) throw errors.notFound(`No such ${kind === 'lists' ? 'list' : 'interest'}`);
      const selection = { listId: kind === 'lists' ? memberId : null, interestId: kind === 'interests' ? memberId : null, state: null };
      await startExport(ctx, selection, exists.name);
    });
  }

  router.get('/exports/:fileName', requirePermission('contacts:list'), async (ctx) => {
    const file = await findFile(store, ctx.params.account, ctx.params.fileName);
    if (!file) throw errors.notFound('No such export (it may still be running: see its task)');
    ctx.set('Content-Type', file.contentType);
    ctx.set('Content-Length', String(file.length));
    ctx.set('Content-Disposition', `attachment; filename="${file.name}"`);
    ctx.body = openFile(store, file);
  });
}

const task = 'A `CONTACT_EXPORT_TASK` task (QUEUED); its `parameters.fileName` names the file, and its `result` when FINISHED holds `{fileName, url, contacts}`';

export const contactExportOperations = accountResource('Contacts', [
  {
    method: 'post', path: '/v2/{account}/contacts/export', id: 'exportContacts', summary: 'Export contacts as a CSV file',
    description: 'Every part of the selection is optional; all contacts of the account when none is given.',
    permissions: ['contacts:list'], body: exportSchema, status: 201, response: task,
  },
  {
    method: 'post', path: '/v2/{account}/lists/{id}/export', id: 'exportListContacts', summary: 'Export the contacts of a list',
    permissions: ['contacts:list'], status: 201, response: task,
  },
  {
    method: 'post', path: '/v2/{account}/interests/{id}/export', id: 'exportInterestContacts', summary: 'Export the contacts with an interest',
    permissions: ['contacts:list'], status: 201, response: task,
  },
  {
    method: 'get', path: '/v2/{account}/exports/{fileName}', id: 'downloadExport', summary: 'Download a finished export',
    permissions: ['contacts:list'], status: 200, response: 'The CSV file', responseSchema: { type: 'string', contentMediaType: 'text/csv' },
  },
]);
