// Tasks: the account API's asynchronous operations (imports, exports, campaign launches). The
// record is created QUEUED and its workflow started in one call; the workflow's activities
// move it through INITIALIZING and PROCESSING (with progress and an eta) to FINISHED or FAILED.
// Cancelling writes CANCELLED at once and asks the workflow to stop; every later write by the
// workflow is conditional on the task still being active, so CANCELLED is never overwritten.
import type { Client } from '@temporalio/client';
import { findPage, type Page, type PageRequest } from '../../adapters/store/paging';
import { nextId } from '../../adapters/store/counters';
import { errors } from '../shared/errors';
import { PermanentFailure } from '../shared/permanent-failure';
import type { Store, TaskDoc, TaskState } from '../../adapters/store/store';
import { requestWorkflowCancel, startTaskWorkflow } from '../../adapters/temporal/client';
import { workflowIds, type TaskType } from '../../adapters/temporal/contracts';

export const ACTIVE_STATES: readonly TaskState[] = ['QUEUED', 'INITIALIZING', 'PROCESSING'];

/** The failure type of work on a task that is no longer active (cancelled, or deleted): the work stops. */
export const TASK_NOT_ACTIVE = 'TaskNotActive';
/** The failure type for input the task cannot work with (a bad file, a list that is gone): not retried. */
export const TASK_INPUT_ERROR = 'TaskInputError';

/** How a task's long work reports its progress (`total` undefined while unknown; `checkpoint` for a retry to resume from). */
export type ProgressReport = (done: number, total: number | undefined, checkpoint: unknown, message: string) => Promise<void>;

export interface TaskDeps { store: Store; temporal: Client; taskQueue: string }

export interface NewTask {
  account: string;
  type: TaskType;
  name: string;
  /** The user starting it (the owner, who may cancel it). */
  owner: { id: number; username: string };
  /** The path that created it, without /v2. */
  request: string;
  /** Or a function of the new task's id, for parameters that must be unique (an export's file name). */
  parameters: Record<string, unknown> | ((taskId: number) => Record<string, unknown>);
  cancellable?: boolean;
  /** The campaign a CAMPAIGN_LAUNCH task sends: its workflow is named after it and searchable by it. */
  campaignId?: number;
  /**
   * Runs once the record is stored, before the workflow starts (a campaign records its launch's
   * task there, so the workflow finds it). A throw removes the record and nothing starts.
   */
  beforeStart?: (task: TaskDoc) => Promise<void>;
}

/**
 * Records the task (QUEUED) and starts its workflow. When the start fails the record is removed,
 * so a client told to retry finds no task that will never run. (A process killed before the start
 * leaves the record: the task sweeper starts it, ./unstarted.ts.)
 */
export async function launchTask(deps: TaskDeps, task: NewTask): Promise<TaskDoc> {
  const doc = await recordTask(deps.store, task);
  try {
    await task.beforeStart?.(doc);
    await startTaskWorkflow(deps.temporal, deps.taskQueue, task.type, { account: task.account, taskId: doc.id }, { workflowId: doc.workflowId, campaignId: task.campaignId });
  } catch (error) {
    await deps.store.tasks.deleteOne({ _id: doc._id, account: doc.account }).catch(() => undefined);
    throw error;
  }
  return doc;
}

/** The task's record, QUEUED, with its id and its workflow's: launchTask's first step. */
export async function recordTask(store: Store, task: NewTask): Promise<TaskDoc> {
  const id = await nextId(store, task.account, 'tasks');
  const doc: TaskDoc = {
    _id: `${task.account}:${id}`,
    account: task.account,
    id,
    type: task.type,
    name: task.name,
    state: 'QUEUED',
    cancellable: task.cancellable ?? true,
    message: 'Queued',
    owner: task.owner.username,
    ownerId: task.owner.id,
    created: new Date(),
    init: null,
    end: null,
    completed: 0,
    eta: -1,
    request: task.request,
    parameters: typeof task.parameters === 'function' ? task.parameters(id) : task.parameters,
    result: null,
    workflowId: task.campaignId === undefined ? workflowIds.task(task.account, id) : workflowIds.campaign(task.account, task.campaignId, id),
  };
  await store.tasks.insertOne(doc);
  return doc;
}

export function findTask(store: Store, account: string, id: number): Promise<TaskDoc | null> {
  return Number.isInteger(id) ? store.tasks.findOne({ _id: `${account}:${id}`, account }) : Promise.resolve(null);
}

/** The task's record, for work on it; a task that is gone or no longer active stops the work (TASK_NOT_ACTIVE). */
export async function activeTask(store: Store, account: string, taskId: number): Promise<TaskDoc> {
  const task = await findTask(store, account, taskId);
  if (!task || !ACTIVE_STATES.includes(task.state)) throw new PermanentFailure(TASK_NOT_ACTIVE, `task ${taskId} is no longer active`);
  return task;
}

/** A page of the account's tasks; `q` matches the name. */
export function findTasks(store: Store, account: string, page: PageRequest): Promise<Page<TaskDoc>> {
  return findPage(store.tasks, { account }, page, 'name');
}

/**
 * Cancels a task that is still active and cancellable: CANCELLED at once (one conditional write,
 * so a task that just finished is not reported cancelled), then the workflow is asked to stop.
 * The caller has checked who may cancel.
 */
export async function cancelTask(deps: TaskDeps, task: TaskDoc): Promise<TaskDoc> {
  if (!task.cancellable) throw errors.badRequest('This task cannot be cancelled');
  const cancelled = await deps.store.tasks.findOneAndUpdate(
    { _id: task._id, account: task.account, state: { $in: [...ACTIVE_STATES] } },
    { $set: { state: 'CANCELLED', end: new Date(), message: 'Cancelled', eta: -1 } },
    { returnDocument: 'after' },
  );
  if (!cancelled) throw errors.badRequest(`A task in state ${(await findTask(deps.store, task.account, task.id))?.state ?? task.state} cannot be cancelled`);
  await requestWorkflowCancel(deps.temporal, task.workflowId);
  return cancelled;
}

// What the workflow's activities write. Each write applies only while the task is active and
// answers whether it still is (false: cancelled, stop).

type Progress = Partial<Pick<TaskDoc, 'state' | 'completed' | 'eta' | 'message' | 'init' | 'end' | 'result' | 'parameters'>>;

export async function updateActiveTask(store: Store, account: string, taskId: number, progress: Progress): Promise<boolean> {
  const result = await store.tasks.updateOne(
    { _id: `${account}:${taskId}`, account, state: { $in: [...ACTIVE_STATES] } },
    { $set: progress },
  );
  return result.matchedCount === 1;
}

/** The task's last state: FINISHED with its result, or FAILED with a message (unless it was cancelled meanwhile). */
export function endTask(
  store: Store, account: string, taskId: number, outcome: { state: 'FINISHED' | 'FAILED'; message: string; result?: unknown },
): Promise<boolean> {
  const finished = outcome.state === 'FINISHED';
  return updateActiveTask(store, account, taskId, {
    state: outcome.state, message: outcome.message, end: new Date(), eta: finished ? 0 : -1, result: outcome.result ?? null, ...(finished ? { completed: 1 } : {}),
  });
}
