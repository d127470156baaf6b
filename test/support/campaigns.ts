// What campaign-sending tests set up and wait for: lists, interests and contacts in the store, a
// DRAFT campaign with its content, and the campaign or its task reaching a state.
import type { Client } from '@temporalio/client';
import { reserveIds } from '../../adapters/store/counters';
import { createCampaign } from '../../core/campaigns/campaigns';
import { createContent, setHtmlBody } from '../../core/campaigns/content-record';
import type { AudienceInput } from '../../core/campaigns/references';
import type { CampaignDoc, CampaignState, ContactDoc, Store, TaskDoc, TaskState } from '../../adapters/store/store';
import type { TaskDeps } from '../../core/tasks/tasks';
import { callHerald, type Json } from './http';
import { waitUntil } from './wait';

export const OWNER = { id: 1, username: 'owner' };

/** What launchCampaign and the others need: the test Herald's store, Temporal and task queue (its database's name). */
export function taskDepsOf(store: Store, temporal: Client): TaskDeps {
  return { store, temporal, taskQueue: store.db.databaseName };
}

export async function addLists(store: Store, account: string, ids: number[]): Promise<void> {
  const now = new Date();
  await store.lists.insertMany(ids.map((id) => ({ _id: `${account}:${id}`, account, id, name: `List ${id}`, description: '', tags: [], created: now, lastModified: now, lastMailed: null })));
}

export async function addInterests(store: Store, account: string, ids: number[], expirationDays = 0): Promise<void> {
  const now = new Date();
  await store.interests.insertMany(ids.map((id) => ({ _id: `${account}:${id}`, account, id, name: `Interest ${id}`, description: '', expirationDays, created: now, lastModified: now, lastMailed: null })));
}

/** Contacts written straight to the store, with ids from the account's counter as every contact has. */
export async function addContacts(store: Store, account: string, contacts: Array<Partial<ContactDoc> & { email: string }>): Promise<ContactDoc[]> {
  const now = new Date();
  const first = contacts.length > 0 ? await reserveIds(store, account, 'contacts', contacts.length) : 0;
  const docs = contacts.map((given, i): ContactDoc => {
    const id = first + i;
    return {
      _id: `${account}:${id}`, account, id, firstName: '', lastName: '', gender: '', language: '', preferredFormat: 'HTML', source: 'API', state: 'ACTIVE',
      quality: 0, lists: [], interests: [], customFields: {}, created: now, lastModified: now, lastMailed: null, lastAction: null, inactivated: null, ...given,
    };
  });
  await store.contacts.insertMany(docs);
  return docs;
}

/** A DRAFT campaign with its content (subject, sender, an HTML body naming the contact). */
export async function draftCampaign(store: Store, account: string, setup: { name: string; include?: AudienceInput; exclude?: AudienceInput }): Promise<CampaignDoc> {
  const campaign = await createCampaign(store, account, { name: setup.name, include: setup.include, exclude: setup.exclude });
  const content = await createContent(store, campaign, { subject: `${setup.name} for \${contact.first_name!"you"}`, from: 'news@example.com', fromName: 'News' });
  await setHtmlBody(store, { ...campaign, content }, content, '<html><body><p>Hello ${contact.email}</p><a href="https://example.com/offer">Offer</a></body></html>');
  return (await store.campaigns.findOne({ _id: campaign._id, account }))!;
}

export async function campaignNow(store: Store, campaign: CampaignDoc): Promise<CampaignDoc> {
  return (await store.campaigns.findOne({ _id: campaign._id, account: campaign.account }))!;
}

export function waitForCampaign(store: Store, campaign: CampaignDoc, states: CampaignState[], timeoutMs = 60000): Promise<CampaignDoc> {
  return waitUntil(`campaign ${campaign.id} ${states.join('|')}`, async () => {
    const now = await campaignNow(store, campaign);
    return states.includes(now.state) ? now : undefined;
  }, timeoutMs);
}

export function waitForTask(store: Store, account: string, taskId: number, states: TaskState[], timeoutMs = 60000): Promise<TaskDoc> {
  return waitUntil(`task ${taskId} ${states.join('|')}`, async () => {
    const task = await store.tasks.findOne({ _id: `${account}:${taskId}`, account });
    return task && states.includes(task.state) ? task : undefined;
  }, timeoutMs);
}

/** Resolves once `count()` has not changed for `quietMs`; returns that value. */
export async function settledCount(count: () => number | Promise<number>, quietMs: number, timeoutMs = 30000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = await count();
  let since = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await count();
    if (now !== last) { last = now; since = Date.now(); }
    if (Date.now() - since >= quietMs) return last;
    if (Date.now() > deadline) throw new Error(`the count kept changing (${last})`);
  }
}

/** The campaign routes a launch goes through, over HTTP as a client calls them (form bodies). */
export function campaignApi(baseUrl: string, account: string, apiKey: string) {
  const call = (method: string, path: string, form?: string) => callHerald(baseUrl, method, `/v2/${account}${path}`, { headers: { authorization: `Bearer ${apiKey}` }, form });
  return {
    call,
    /** POST …/launch (launchDate: now when null); the answer's task, after checking the 200. */
    async launch(campaign: Pick<CampaignDoc, 'id'>, launchDate: Date | null = null): Promise<Json> {
      const answer = await call('POST', `/campaigns/${campaign.id}/launch`, launchDate ? `launchDate=${encodeURIComponent(launchDate.toISOString())}` : '');
      if (answer.status !== 200) throw new Error(`launch answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.task;
    },
    /** POST …/{stop|cancel|pause|resume|resend-failed}: the answer. */
    action: (campaign: Pick<CampaignDoc, 'id'>, action: 'stop' | 'cancel' | 'pause' | 'resume' | 'resend-failed') => call('POST', `/campaigns/${campaign.id}/${action}`, ''),
  };
}
