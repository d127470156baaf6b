// An automation's runs as GET /v2/{account}/automations/{id}/runs lists them, newest first, from
// the run records (core/automations/runs.ts). The record keeps no step pointer, so a run's current
// step is read from the send ledger: an email step that was sent (or dropped, or failed) has a
// ledger row under its mail_id (./model.ts automationMailId), one _id lookup per email step of
// the page's runs. A running or stopped run is at the step after its last email with a row (a
// wait, or an email not sent yet); a failed one at that email; a completed one at its last step.
import type { AutomationDoc, AutomationRunDoc, LedgerRowDoc, Store } from '../../adapters/store/store';
import { workflowIds } from '../../adapters/temporal/contracts';
import { automationBatchId, automationMailId } from './model';
import { rolledBatches } from '../retention/rollups';

/** The console's names: a run stopped by a deactivation (state `exited`) is `cancelled`. */
const STATUS = { running: 'running', completed: 'completed', failed: 'failed', exited: 'cancelled' } as const;
export type RunStatus = (typeof STATUS)[keyof typeof STATUS];
export const RUN_STATUSES: readonly RunStatus[] = ['running', 'completed', 'failed', 'cancelled'];
const STATE_OF: Record<RunStatus, AutomationRunDoc['state']> = { running: 'running', completed: 'completed', failed: 'failed', cancelled: 'exited' };

export interface RunListOptions { offset: number; limit: number; sortdir: 'asc' | 'desc'; status?: RunStatus; q?: object }

/** Index of the step the run is at (see the head of this file). */
function currentStep(run: AutomationRunDoc, done: Set<string>): number {
  const last = run.steps.length - 1;
  if (run.state === 'completed') return last;
  let lastDone = -1;
  run.steps.forEach((step, index) => {
    if (step.type === 'email' && done.has(automationMailId(run.account, run.automationId, run.eventId, index))) lastDone = index;
  });
  if (run.state === 'failed' && lastDone >= 0) return lastDone;
  return Math.max(0, Math.min(lastDone + 1, last));
}

export async function findAutomationRuns(store: Store, automation: AutomationDoc, options: RunListOptions) {
  const { account } = automation;
  const filter = {
    account, automationId: automation.id,
    ...(options.status ? { state: STATE_OF[options.status] } : {}),
    ...(options.q ? { email: options.q } : {}),
  };
  const order = options.sortdir === 'asc' ? 1 : -1;
  const [runs, total] = await Promise.all([
    store.automationRuns.find(filter).sort({ started: order, _id: order }).skip(options.offset).limit(options.limit).toArray(),
    store.automationRuns.countDocuments(filter),
  ]);
  const mailIds = runs.flatMap((run) => run.steps.flatMap((step, index) => (
    step.type === 'email' ? [automationMailId(account, run.automationId, run.eventId, index)] : [])));
  const rows = mailIds.length === 0 ? [] : await store.ledger.find({ _outcome_of: { $in: mailIds }, account })
    .project<Pick<LedgerRowDoc, '_outcome_of' | '_ledger'>>({ _id: 0, _outcome_of: 1 }).toArray();
  const done = new Set(rows.map((row) => row._outcome_of));
  const items = runs.map((run) => {
    const step = run.steps.length === 0 ? null : currentStep(run, done);
    return {
      id: run.eventId,
      contact: run.email,
      started: run.started.toISOString(),
      ended: run.ended ? run.ended.toISOString() : null,
      status: STATUS[run.state],
      step,
      stepType: step === null ? null : run.steps[step].type,
      steps: run.steps.length,
      ...(run.reason ? { reason: run.reason } : {}),
      workflowId: workflowIds.automationRun(account, run.eventId, run.automationId),
    };
  });
  return { items, total };
}

/** The automation's messages' events by type (every run's messages share its batch_id): sent, first opens and clicks (recipients), bounces and unsubscriptions. */
export async function automationMessageStats(store: Store, automation: AutomationDoc) {
  const types = {
    'track.mail.sent': 'sent', 'track.mail.first_opened': 'opened', 'track.mail.first_clicked': 'clicked',
    'track.mail.bounced': 'bounced', 'track.mail.unsubscribed': 'unsubscribed',
  } as const;
  const rows = await store.events.aggregate<{ _id: keyof typeof types; n: number }>([
    { $match: { account: automation.account, batch_id: automationBatchId(automation.account, automation.id), track_type: { $in: Object.keys(types) } } },
    { $group: { _id: '$track_type', n: { $sum: 1 } } },
  ]).toArray();
  const stats = { sent: 0, opened: 0, clicked: 0, bounced: 0, unsubscribed: 0 };
  for (const row of rows) stats[types[row._id]] += row.n;
  // The counts of its messages whose history was pruned (core/retention/).
  const batchId = automationBatchId(automation.account, automation.id);
  const rolled = (await rolledBatches(store, automation.account, [batchId])).get(batchId);
  for (const [type, counts] of rolled ?? []) if (type in types) stats[types[type as keyof typeof types]] += counts.events;
  return stats;
}
