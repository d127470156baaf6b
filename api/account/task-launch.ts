import type { Context } from 'koa';
import type { Principal } from '../../core/accounts/credentials';
import type { Store } from '../../adapters/store/store';
import type { TaskDeps } from '../../core/tasks/tasks';
import { launchTask, type NewTask } from '../../core/tasks/tasks';
import { findUser } from '../../core/accounts/users';
import { reply } from './envelope';
import { taskView } from './tasks';

/**
 * Starts a task for the requesting user and answers it in the envelope's `task` (201, as the
 * original answers an export). `request` is the path without /v2, as the original records it.
 */
export async function replyWithNewTask(ctx: Context, deps: TaskDeps, task: Omit<NewTask, 'account' | 'owner' | 'request'>): Promise<void> {
  const principal: Principal = ctx.state.principal;
  const launched = await launchTask(deps, { ...task, account: principal.account, ...await taskOrigin(ctx, deps.store) });
  reply(ctx, { status: 201, task: taskView(launched) });
}

/** Who starts a task (the requesting user: its owner, who may cancel it) and the path that asked, without /v2. */
export async function taskOrigin(ctx: Context, store: Store): Promise<{ owner: { id: number; username: string }; request: string }> {
  const principal: Principal = ctx.state.principal;
  const user = await findUser(store, principal.account, principal.userId);
  return { owner: { id: principal.userId, username: user?.username ?? principal.account }, request: ctx.path.replace(/^\/v2/, '') };
}
