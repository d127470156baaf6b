import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Principal } from '../../core/accounts/credentials';
import { errors } from '../../core/shared/errors';
import type { TaskDoc } from '../../adapters/store/store';
import { cancelTask, findTask, findTasks, type TaskDeps } from '../../core/tasks/tasks';
import { accountResource } from '../openapi/operation';
import { requirePermission } from './auth';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';
import { integerParam } from './params';

const LIST: ListSpec = { sortFields: ['created'], defaultDir: 'desc', defaultLimit: 5 };

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The spec's Task. */
export function taskView(task: TaskDoc) {
  return {
    id: task.id, type: task.type, name: task.name, state: task.state, cancellable: task.cancellable, message: task.message,
    owner: task.owner, created: iso(task.created), init: iso(task.init), end: iso(task.end),
    completed: task.completed, eta: task.eta, request: task.request, parameters: task.parameters, result: task.result,
  };
}

async function loadTask(deps: TaskDeps, ctx: Context): Promise<TaskDoc> {
  const task = await findTask(deps.store, ctx.params.account, integerParam(ctx));
  if (!task) throw errors.notFound('No such task');
  return task;
}

/** Tasks (`/v2/{account}/tasks…`): asynchronous operations and their progress. */
export function taskRoutes(router: Router, deps: TaskDeps): void {
  router.get('/tasks', requirePermission('tasks:list'), async (ctx) => {
    const options = parseListOptions(ctx, LIST);
    const { items, total } = await findTasks(deps.store, ctx.params.account, options);
    replyPage(ctx, options, items.map(taskView), total);
  });

  router.get('/tasks/:id', requirePermission('tasks:list'), async (ctx) => {
    reply(ctx, { data: taskView(await loadTask(deps, ctx)) });
  });

  // The owner cancels their own tasks; anyone else needs tasks:cancel (the original's rule).
  router.post('/tasks/:id/cancel', async (ctx) => {
    const task = await loadTask(deps, ctx);
    const principal: Principal = ctx.state.principal;
    if (task.ownerId !== principal.userId && !principal.permissions.has('tasks:cancel')) {
      throw errors.forbidden('Only the user that started this task, or one with the permission tasks:cancel, may cancel it');
    }
    await cancelTask(deps, task);
    reply(ctx, {});
  });
}

export const taskOperations = accountResource('Tasks', [
  {
    method: 'get', path: '/v2/{account}/tasks', id: 'listTasks', summary: 'Tasks of the account, newest first', permissions: ['tasks:list'],
    listing: { spec: LIST, q: 'the name' }, status: 200, response: 'A page of tasks',
  },
  {
    method: 'get', path: '/v2/{account}/tasks/{id}', id: 'getTask', summary: 'A task, with its live state, progress and eta',
    description: 'States: QUEUED, INITIALIZING, PROCESSING, then FINISHED (with `result`), FAILED (with `message`) or CANCELLED. '
      + '`completed` goes from 0 to 1; `eta` is seconds left, -1 when unknown.',
    permissions: ['tasks:list'], status: 200, response: 'The task',
  },
  {
    method: 'post', path: '/v2/{account}/tasks/{id}/cancel', id: 'cancelTask', summary: 'Cancel a task',
    description: 'Only while QUEUED, INITIALIZING or PROCESSING and `cancellable`; otherwise 400. Work done before the cancel stays (contacts already imported remain).',
    access: 'The user that started the task, or a user with the permission `tasks:cancel`', status: 200, response: 'Cancelled', errors: [400],
  },
]);
