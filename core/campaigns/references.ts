// A campaign's include and exclude as clients send them: ids of lists and interests, and other
// campaigns as bare ids (their SENT recipients) or `{id, action}` objects. Each one must exist in
// the account when the campaign is saved; what is deleted later simply selects no one.
import type { Collection } from 'mongodb';
import { errors, fieldError, type FieldError } from '../shared/errors';
import type { CampaignAction, CampaignAudience, Store } from '../../adapters/store/store';
import { CAMPAIGN_ACTIONS } from './model';

/** include/exclude as the request gives them (after the schema): any key may be missing, members in any accepted shape. */
export interface AudienceInput { lists?: unknown[]; interests?: unknown[]; campaigns?: unknown[] }

const MAX_ID = 999_999_999;

interface Numbered { _id: string; account: string; id: number }

function idOf(value: unknown): number | undefined {
  const id = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  return Number.isInteger(id) && id >= 1 && id <= MAX_ID ? id : undefined;
}

/**
 * The given keys of an include or exclude, converted: ids once each, campaigns as `{id, action}`
 * (a bare id is SENT; an action in any letter case). Bad members become field errors named like
 * `include.campaigns[1].action`.
 */
export function readAudience(input: AudienceInput, field: string, problems: Record<string, FieldError>): Partial<CampaignAudience> {
  const audience: Partial<CampaignAudience> = {};
  for (const key of ['lists', 'interests'] as const) {
    const items = input[key];
    if (!items) continue;
    const ids = items.flatMap((item, i) => {
      const id = idOf(item);
      if (id === undefined) problems[`${field}.${key}[${i}]`] ??= fieldError('invalid_value', 'Must be an id');
      return id === undefined ? [] : [id];
    });
    audience[key] = [...new Set(ids)];
  }
  if (input.campaigns) {
    const members = new Map<string, { id: number; action: CampaignAction }>();
    input.campaigns.forEach((item, i) => {
      const object = typeof item === 'object' && item !== null && !Array.isArray(item) ? item as { id?: unknown; action?: unknown } : undefined;
      const id = idOf(object ? object.id : item);
      const rawAction = object?.action ?? 'SENT';
      const action = typeof rawAction === 'string' ? CAMPAIGN_ACTIONS.find((a) => a === rawAction.trim().toUpperCase()) : undefined;
      if (id === undefined) problems[`${field}.campaigns[${i}]${object ? '.id' : ''}`] ??= fieldError('invalid_value', 'Must be a campaign id, or an object {id, action}');
      else if (!action) problems[`${field}.campaigns[${i}].action`] ??= fieldError('invalid_value', `Must be one of: ${CAMPAIGN_ACTIONS.join(', ')}`);
      else members.set(`${id}:${action}`, { id, action });
    });
    audience.campaigns = [...members.values()];
  }
  return audience;
}

/**
 * Throws one VALIDATION_ERROR naming every list, interest or campaign that is not the account's
 * (and a campaign naming itself). Reads each collection once, by `_id`.
 */
export async function checkAudienceReferences(
  store: Store, account: string, audiences: Record<string, Partial<CampaignAudience>>, campaignId?: number,
): Promise<void> {
  const wanted = { lists: new Set<number>(), interests: new Set<number>(), campaigns: new Set<number>() };
  for (const audience of Object.values(audiences)) {
    audience.lists?.forEach((id) => wanted.lists.add(id));
    audience.interests?.forEach((id) => wanted.interests.add(id));
    audience.campaigns?.forEach(({ id }) => wanted.campaigns.add(id));
  }
  const existing = async (collection: 'lists' | 'interests' | 'campaigns') => {
    const ids = [...wanted[collection]];
    if (ids.length === 0) return new Set<number>();
    const found = await (store[collection] as unknown as Collection<Numbered>)
      .find({ _id: { $in: ids.map((id) => `${account}:${id}`) }, account }).project<{ id: number }>({ id: 1 }).toArray();
    return new Set(found.map((doc) => doc.id));
  };
  const [lists, interests, campaigns] = await Promise.all([existing('lists'), existing('interests'), existing('campaigns')]);
  const problems: Record<string, FieldError> = {};
  for (const [field, audience] of Object.entries(audiences)) {
    audience.lists?.forEach((id, i) => { if (!lists.has(id)) problems[`${field}.lists[${i}]`] = fieldError('invalid_value', `No list with id ${id}`); });
    audience.interests?.forEach((id, i) => { if (!interests.has(id)) problems[`${field}.interests[${i}]`] = fieldError('invalid_value', `No interest with id ${id}`); });
    audience.campaigns?.forEach(({ id }, i) => {
      if (id === campaignId) problems[`${field}.campaigns[${i}]`] = fieldError('invalid_value', 'A campaign cannot name itself');
      else if (!campaigns.has(id)) problems[`${field}.campaigns[${i}]`] = fieldError('invalid_value', `No campaign with id ${id}`);
    });
  }
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
}
