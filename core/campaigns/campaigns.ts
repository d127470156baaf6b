// Campaigns of an account: create, read, page, modify, delete, duplicate, archive. A DRAFT may
// change in every part; once launched only its tags may (the original's rule). Writes that need
// DRAFT are conditional on it, so a launch that wins a race is never undone by a late PUT.
import type { Filter } from 'mongodb';
import { changedValues, findPage, type Page, type PageRequest } from '../../adapters/store/paging';
import { nextId } from '../../adapters/store/counters';
import { errors, fieldError, type FieldError } from '../shared/errors';
import type { CampaignAudience, CampaignDoc, CampaignState, Store } from '../../adapters/store/store';
import { emptyAudience } from './model';
import { defaultOptions, readOptions, renamedOptions } from './options';
import { checkAudienceReferences, readAudience, type AudienceInput } from './references';

/** What a create or a PUT gives, after the API's schema. Options and audiences are read here. */
export interface CampaignInput {
  name?: string;
  description?: string;
  tags?: string[];
  launchMode?: CampaignDoc['launchMode'];
  /** The original's `launch` (or `launchDate`); null clears it. Needs launchMode SCHEDULED. */
  launchDate?: Date | null;
  options?: Record<string, unknown>;
  include?: AudienceInput;
  exclude?: AudienceInput;
}

export interface CampaignFilters {
  states?: CampaignState[];
  /** Campaigns carrying any of these tags. */
  tags?: string[];
  /** true: only archived campaigns; false: only the others. */
  archived: boolean;
}

/** The campaign fields a PUT may change (what its answer can show). */
export type CampaignChanges = Partial<Pick<CampaignDoc,
  'name' | 'description' | 'tags' | 'launchMode' | 'launchDate' | 'options' | 'include' | 'exclude'>>;

/**
 * The order of `sortby=stateGroup`: where a campaign is in its life. Drafts, then those waiting
 * to go (scheduled, pending approval), then those sending, then the finished ones (sent, cancelled).
 */
export const STATE_GROUPS: Readonly<Record<CampaignState, number>> = {
  DRAFT: 1, PENDING_APPROVAL: 2, SCHEDULED: 2, SENDING: 3, SENT: 4, CANCELLED: 4,
};

const docId = (account: string, id: number) => `${account}:${id}`;

/** 400 naming the state, unless the campaign is in one of `states`. */
export function requireState(campaign: CampaignDoc, states: readonly CampaignState[], action: string): void {
  if (!states.includes(campaign.state)) {
    throw errors.badRequest(`Campaign ${campaign.id} is ${campaign.state}: it can ${action} only when ${states.join(' or ')}`);
  }
}

function throwIfProblems(problems: Record<string, FieldError>): void {
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
}

/** Creates a DRAFT campaign; `reservedId`: an id taken from the counter beforehand (a migration records it before creating). */
export async function createCampaign(store: Store, account: string, input: CampaignInput & { name: string }, reservedId?: number): Promise<CampaignDoc> {
  const name = input.name.trim();
  const launchMode = input.launchMode ?? 'NOW';
  const problems: Record<string, FieldError> = {};
  if (input.launchDate && launchMode !== 'SCHEDULED') problems.launch = fieldError('invalid_value', 'A launch date needs launchMode SCHEDULED');
  const include = readAudience(input.include ?? {}, 'include', problems);
  const exclude = readAudience(input.exclude ?? {}, 'exclude', problems);
  throwIfProblems(problems);
  const options = { ...defaultOptions(name), ...readOptions(input.options ?? {}, name) };
  await checkAudienceReferences(store, account, { include, exclude });
  const id = reservedId ?? await nextId(store, account, 'campaigns');
  const now = new Date();
  const campaign: CampaignDoc = {
    _id: docId(account, id), account, id, name, description: input.description ?? '', tags: [...new Set(input.tags ?? [])],
    type: 'SIMPLE', state: 'DRAFT', launchMode, launchDate: input.launchDate ?? null, created: now, lastModified: now,
    archived: null, thumbnail: null, options, include: { ...emptyAudience(), ...include }, exclude: { ...emptyAudience(), ...exclude },
    content: null, recipients: null,
  };
  await store.campaigns.insertOne(campaign);
  return campaign;
}

export function findCampaign(store: Store, account: string, id: number): Promise<CampaignDoc | null> {
  return Number.isInteger(id) ? store.campaigns.findOne({ _id: docId(account, id), account }) : Promise.resolve(null);
}

/** A page of the account's campaigns; `q` matches the name. */
export async function findCampaigns(store: Store, account: string, page: PageRequest, filters: CampaignFilters): Promise<Page<CampaignDoc>> {
  const query: Filter<CampaignDoc> = {
    account,
    archived: filters.archived ? { $ne: null } : null,
    ...(filters.states ? { state: { $in: filters.states } } : {}),
    ...(filters.tags ? { tags: { $in: filters.tags } } : {}),
  };
  if (page.sortby !== 'stateGroup') return findPage(store.campaigns, query, page);
  return findPageByStateGroup(store, { ...query, ...(page.q ? { name: page.q } : {}) }, page);
}

/**
 * The state group is no stored field: the matching campaigns' ids and states are read (an
 * account has campaigns by the hundreds, not millions), ordered, and only the page is fetched.
 */
async function findPageByStateGroup(store: Store, query: Filter<CampaignDoc>, page: PageRequest): Promise<Page<CampaignDoc>> {
  const all = await store.campaigns.find(query).project<Pick<CampaignDoc, 'id' | 'state'>>({ id: 1, state: 1 }).toArray();
  const direction = page.sortdir === 'asc' ? 1 : -1;
  all.sort((a, b) => direction * (STATE_GROUPS[a.state] - STATE_GROUPS[b.state]) || a.id - b.id);
  const ids = all.slice(page.offset, page.offset + page.limit).map((c) => c.id);
  if (ids.length === 0) return { items: [], total: all.length };
  const account = query.account as string;
  const docs = await store.campaigns.find({ _id: { $in: ids.map((id) => docId(account, id)) }, account }).toArray();
  const byId = new Map(docs.map((doc) => [doc.id, doc]));
  return { items: ids.flatMap((id) => byId.get(id) ?? []), total: all.length };
}

/** The campaign's values after `input`: include and exclude replace only the keys given. */
function target(campaign: CampaignDoc, input: CampaignInput, problems: Record<string, FieldError>): CampaignChanges {
  const name = input.name?.trim() ?? campaign.name;
  const launchMode = input.launchMode ?? campaign.launchMode;
  if (input.launchDate && launchMode !== 'SCHEDULED') problems.launch = fieldError('invalid_value', 'A launch date needs launchMode SCHEDULED');
  // Switching to NOW drops the date; a launched campaign's own launchDate (set by the launch) stays.
  const launchDate = input.launchMode === 'NOW' ? null : input.launchDate !== undefined ? input.launchDate : campaign.launchDate;
  const options = input.options
    ? { ...renamedOptions(campaign.options, campaign.name, name), ...readOptions(input.options, name) }
    : renamedOptions(campaign.options, campaign.name, name);
  const merge = (current: CampaignAudience, given: AudienceInput | undefined, field: string) =>
    (given ? { ...current, ...readAudience(given, field, problems) } : current);
  return {
    name, description: input.description ?? campaign.description, tags: input.tags ? [...new Set(input.tags)] : campaign.tags,
    launchMode, launchDate, options, include: merge(campaign.include, input.include, 'include'), exclude: merge(campaign.exclude, input.exclude, 'exclude'),
  };
}

/**
 * Applies what differs and returns only that. A DRAFT may change anything; any other state only
 * its tags: a request that would change more is refused whole (400 naming the state), so a
 * client may still PUT back the record it read with new tags.
 */
export async function updateCampaign(store: Store, campaign: CampaignDoc, input: CampaignInput): Promise<CampaignChanges> {
  const problems: Record<string, FieldError> = {};
  const changes = changedValues<CampaignChanges>(campaign, target(campaign, input, problems));
  throwIfProblems(problems);
  if (Object.keys(changes).length === 0) return changes;
  const draft = campaign.state === 'DRAFT';
  if (!draft) {
    const refused = Object.keys(changes).filter((key) => key !== 'tags');
    if (refused.length > 0) {
      throw errors.badRequest(`Campaign ${campaign.id} is ${campaign.state}: only its tags can change (refused: ${refused.join(', ')})`);
    }
  }
  const audiences = Object.fromEntries((['include', 'exclude'] as const).filter((k) => changes[k]).map((k) => [k, changes[k]!]));
  await checkAudienceReferences(store, campaign.account, audiences, campaign.id);
  const { matchedCount } = await store.campaigns.updateOne(
    { _id: campaign._id, account: campaign.account, ...(draft ? { state: 'DRAFT' as const } : {}) },
    { $set: { ...changes, lastModified: new Date() } },
  );
  if (matchedCount === 0) await throwCurrentState(store, campaign, 'change');
  return changes;
}

/** After a conditional write missed: the campaign is gone (404) or left DRAFT meanwhile (400). */
export async function throwCurrentState(store: Store, campaign: CampaignDoc, action: string): Promise<never> {
  const now = await findCampaign(store, campaign.account, campaign.id);
  if (!now) throw errors.notFound('No such campaign');
  throw errors.badRequest(`Campaign ${campaign.id} is ${now.state}: it can ${action} only when DRAFT`);
}

/** DRAFT only (the original's rule): a launched campaign's record stays, with its recipients and metrics. */
export async function deleteCampaign(store: Store, campaign: CampaignDoc): Promise<void> {
  requireState(campaign, ['DRAFT'], 'be deleted');
  const { deletedCount } = await store.campaigns.deleteOne({ _id: campaign._id, account: campaign.account, state: 'DRAFT' });
  if (deletedCount === 0) await throwCurrentState(store, campaign, 'be deleted');
}

/**
 * A new DRAFT named `name` with everything of `campaign` but its state, launch and figures:
 * description, tags, options (an analytics name that was the old name becomes the new one),
 * include, exclude and the content with its bodies (under a new content id).
 */
export async function duplicateCampaign(store: Store, campaign: CampaignDoc, name: string): Promise<CampaignDoc> {
  const trimmed = name.trim();
  const id = await nextId(store, campaign.account, 'campaigns');
  const contentId = campaign.content ? await nextId(store, campaign.account, 'campaignContents') : 0;
  const now = new Date();
  const copy: CampaignDoc = {
    _id: docId(campaign.account, id), account: campaign.account, id, name: trimmed, description: campaign.description, tags: [...campaign.tags],
    type: campaign.type, state: 'DRAFT', launchMode: 'NOW', launchDate: null, created: now, lastModified: now, archived: null, thumbnail: null,
    options: renamedOptions(campaign.options, campaign.name, trimmed), include: structuredClone(campaign.include), exclude: structuredClone(campaign.exclude),
    content: campaign.content ? { ...campaign.content, id: contentId, created: now, lastModified: now } : null, recipients: null,
  };
  await store.campaigns.insertOne(copy);
  return copy;
}

/** SENT or CANCELLED only: out of the default listing (`filter[archived]=true` shows it). Archiving twice keeps the first date. */
export async function archiveCampaign(store: Store, campaign: CampaignDoc): Promise<CampaignDoc> {
  requireState(campaign, ['SENT', 'CANCELLED'], 'be archived');
  if (campaign.archived) return campaign;
  const archived = new Date();
  await store.campaigns.updateOne({ _id: campaign._id, account: campaign.account, archived: null }, { $set: { archived, lastModified: archived } });
  return (await findCampaign(store, campaign.account, campaign.id)) ?? campaign;
}

/** Back in the default listing; a campaign not archived is left as it is. */
export async function unarchiveCampaign(store: Store, campaign: CampaignDoc): Promise<CampaignDoc> {
  if (!campaign.archived) return campaign;
  await store.campaigns.updateOne({ _id: campaign._id, account: campaign.account }, { $set: { archived: null, lastModified: new Date() } });
  return (await findCampaign(store, campaign.account, campaign.id)) ?? campaign;
}
