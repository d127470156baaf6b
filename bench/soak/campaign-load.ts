// The campaigns: 20,000 contacts imported into a list before the load, then a campaign to that
// list launched every few minutes; the second is paused once a quarter of it went out and resumed
// 20 s later, the third cancelled at a quarter. Each call is retried while Herald is down (503 or
// no answer), as a marketer would click again.
import { callRecorded } from './answers';
import { accountUrl, bearer, FROM, SOAK_DOMAIN, type SoakContext } from './context';
import type { SoakSink } from './mail-sink';

/** Contacts whose campaign mail the tracking load opens, clicks and unsubscribes from. */
export const TRACKED_CONTACT_PREFIX = 'ct';
const TRACKED_CONTACTS = 200;
export const contactAddress = (i: number) => `${i < TRACKED_CONTACTS ? TRACKED_CONTACT_PREFIX : 'c'}${i}@${SOAK_DOMAIN}`;

export type CampaignPlan = 'plain' | 'pause-resume' | 'cancel';

export interface SoakCampaign {
  id: number;
  subject: string;
  plan: CampaignPlan;
  launchedAt: number;
  pausedAt?: number;
  resumedAt?: number;
  cancelledAt?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls until an answer that is not an outage (503 or none), for up to `patienceMs`.
 * `unansweredBefore`: an earlier call got no answer at all (it may have been done).
 */
export async function persist(ctx: SoakContext, kind: string, path: string, init: Parameters<typeof callRecorded>[3] = {}, patienceMs = 180_000) {
  const deadline = Date.now() + patienceMs;
  let unansweredBefore = false;
  for (;;) {
    const answer = await callRecorded(ctx.answers, kind, accountUrl(ctx, path), { ...init, headers: { ...bearer(ctx.apiKey), ...init.headers } });
    if (answer && answer.status !== 503) return { ...answer, unansweredBefore };
    if (!answer) unansweredBefore = true;
    if (Date.now() > deadline) throw new Error(`${kind} ${path}: Herald did not answer for ${patienceMs / 1000} s`);
    await sleep(2000);
  }
}

const json = (text: string) => JSON.parse(text) as { data: Record<string, unknown> };

/** The answer's `data`, or an error naming what was answered instead (a 404 when Herald lost the record). */
function dataOf(what: string, answer: { status: number; text: string }): Record<string, unknown> {
  const data = answer.status < 300 ? (JSON.parse(answer.text) as { data?: Record<string, unknown> }).data : undefined;
  if (!data) throw new Error(`${what}: answered ${answer.status} ${answer.text.slice(0, 300)}`);
  return data;
}

/** The list and its contacts, imported as a CSV; returns the list's id. */
export async function importContacts(ctx: SoakContext, count: number): Promise<number> {
  const list = await persist(ctx, 'setup', '/lists', { json: { name: 'Soak readers' } });
  if (list.status !== 201) throw new Error(`creating the list: ${list.status} ${list.text}`);
  const listId = json(list.text).data.id as number;
  const rows = ['email,first name', ...Array.from({ length: count }, (_, i) => `${contactAddress(i)},Reader${i}`)];
  const task = await persist(ctx, 'setup', '/contacts/import', { json: { sourceRaw: rows.join('\n'), list: listId } });
  if (task.status !== 201) throw new Error(`importing the contacts: ${task.status} ${task.text}`);
  await waitForTask(ctx, (JSON.parse(task.text) as { task: { id: number } }).task.id);
  return listId;
}

export async function waitForTask(ctx: SoakContext, taskId: number): Promise<Record<string, unknown>> {
  for (;;) {
    const task = dataOf(`task ${taskId}`, await persist(ctx, 'setup', `/tasks/${taskId}`));
    if (task.state === 'FINISHED') return task;
    if (task.state === 'FAILED' || task.state === 'CANCELLED') throw new Error(`task ${taskId} ended ${String(task.state)}: ${JSON.stringify(task.result ?? task.message)}`);
    await sleep(1000);
  }
}

/** A campaign to the list, its content with a tracked link and the unsubscribe link, launched. */
export async function launchCampaign(ctx: SoakContext, listId: number, n: number, plan: CampaignPlan): Promise<SoakCampaign> {
  const subject = `soak campaign ${n}`;
  const created = await persist(ctx, 'campaign_api', '/campaigns', { json: { name: `Soak ${n}`, include: { lists: [listId] } } });
  const id = json(created.text).data.id as number;
  const content = await persist(ctx, 'campaign_api', `/campaigns/${id}/contents`, { json: { type: 'HTML', subject, from: FROM, fromName: 'Soak news' } });
  const contentId = json(content.text).data.id as number;
  const body = `<html><body><p>Hello \${contact.first_name}</p><p><a href="https://shop.example/news/${n}">Read</a></p><p><a href="\${urls.unsubscribe}">Unsubscribe</a></p></body></html>`;
  await persist(ctx, 'campaign_api', `/campaigns/${id}/contents/${contentId}.html`, { method: 'PUT', raw: { type: 'text/html', body } });
  const launched = await persist(ctx, 'campaign_api', `/campaigns/${id}/launch`, { method: 'POST', expected: [400] });
  // A launch that got no answer may have been done: the next one is then refused as not DRAFT, as a marketer clicking again sees.
  const launchedBefore = launched.status === 400 && launched.unansweredBefore && (await campaignState(ctx, id)).state !== 'DRAFT';
  if (launched.status !== 200 && !launchedBefore) throw new Error(`launching campaign ${id}: ${launched.status} ${launched.text}`);
  return { id, subject, plan, launchedAt: Date.now() };
}

/** Campaign state as the API says it. */
export async function campaignState(ctx: SoakContext, id: number): Promise<{ state: string; recipients: number | null }> {
  const data = dataOf(`campaign ${id}`, await persist(ctx, 'campaign_api', `/campaigns/${id}`));
  return { state: String(data.state), recipients: (data.recipients as number | null) ?? null };
}

/** Pauses (then resumes) or cancels the campaign once a quarter of its contacts got it. */
export async function interfere(ctx: SoakContext, sink: SoakSink, campaign: SoakCampaign, contacts: number): Promise<void> {
  if (campaign.plan === 'plain') return;
  const sentOfIt = () => sink.bySubject.get(campaign.subject) ?? 0;
  while (sentOfIt() < contacts / 4) {
    const { state } = await campaignState(ctx, campaign.id);
    if (state === 'SENT' || state === 'CANCELLED') return;
    await sleep(1000);
  }
  if (campaign.plan === 'cancel') {
    await persist(ctx, 'campaign_api', `/campaigns/${campaign.id}/cancel`, { method: 'POST', expected: [400] });
    campaign.cancelledAt = Date.now();
    return;
  }
  const paused = await persist(ctx, 'campaign_api', `/campaigns/${campaign.id}/pause`, { method: 'POST', expected: [400] });
  if (paused.status !== 200) return;
  campaign.pausedAt = Date.now();
  await sleep(20_000);
  await persist(ctx, 'campaign_api', `/campaigns/${campaign.id}/resume`, { method: 'POST' });
  campaign.resumedAt = Date.now();
}
