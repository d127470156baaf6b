// What every part of the campaigns feature shares: states, option keys (the spec's neutral names
// and the original's), and the names a campaign's messages carry (request id, mail_id, batch id).
// Pure definitions: the API, the workflow's activities, tracking and metrics all read them here.
import type { CampaignAction, CampaignAudience, CampaignState } from '../../adapters/store/store';
import { derivedPrefix } from '../shared/ids';

export const CAMPAIGN_STATES: readonly CampaignState[] = ['DRAFT', 'SCHEDULED', 'PENDING_APPROVAL', 'SENDING', 'SENT', 'CANCELLED'];

/** Actions a member of include/exclude `campaigns` may name (a bare id means SENT). */
export const CAMPAIGN_ACTIONS: readonly CampaignAction[] = ['SENT', 'OPENED', 'CLICKED', 'NO_OPEN', 'NO_CLICK'];

/** States in which a launch is under way: the workflow runs, cancel applies. */
export const LAUNCHED_STATES: readonly CampaignState[] = ['SCHEDULED', 'PENDING_APPROVAL', 'SENDING'];

/** The spec's neutral option keys, each `1` on create (ANALYTICS_CAMPAIGN_NAME: the campaign's name). */
export const NEUTRAL_OPTIONS = [
  'TRACK_LINKS', 'ANALYTICS', 'ANALYTICS_CAMPAIGN_NAME', 'VIEW_ONLINE', 'SHARE_NETWORK_1', 'SHARE_NETWORK_2', 'SHARE_NETWORK_3', 'SHARE_FORWARD',
] as const;
export type NeutralOption = typeof NEUTRAL_OPTIONS[number];

/** The original's option keys, and the neutral key each one is. Clients may send either; answers carry both. */
export const ORIGINAL_OPTION_KEYS: Readonly<Record<string, NeutralOption>> = {
  GOOGLE_ANALYTICS: 'ANALYTICS',
  GA_CAMPAIGN_NAME: 'ANALYTICS_CAMPAIGN_NAME',
  SHARE_FACEBOOK: 'SHARE_NETWORK_1',
  SHARE_TWITTER: 'SHARE_NETWORK_2',
  SHARE_LINKEDIN: 'SHARE_NETWORK_3',
};

/** The share network of each SHARE_NETWORK_n option (core/tracking/share-networks.ts names them). */
export const SHARE_OPTION_NETWORKS = { SHARE_NETWORK_1: 'facebook', SHARE_NETWORK_2: 'twitter', SHARE_NETWORK_3: 'linkedin' } as const;

/**
 * The original's options with no neutral name: USE_HEADER (the header links block) and
 * USE_FOOTER (the unsubscribe footer). Absent on create, which means used; `0` turns them off.
 */
export const LAYOUT_OPTIONS = ['USE_HEADER', 'USE_FOOTER'] as const;

/** The footer's unsubscribe text when the content gives none. */
export const DEFAULT_UNSUBSCRIBE_TEXT = 'To stop receiving these emails, unsubscribe here.';

/** The events of a campaign's messages carry this mail_type. */
export const CAMPAIGN_MAIL_TYPE = 'campaign';

export const emptyAudience = (): CampaignAudience => ({ lists: [], interests: [], campaigns: [] });

/**
 * The request id a campaign's messages carry in the ledger (MessageDoc.requestId) and in their
 * tracking tokens: `campaign-<id>` for the launch, `campaign-<id>-r<n>` for resend round n.
 * Transactional request ids are hex and never start with `campaign-`.
 */
export function campaignRequestId(campaignId: number, round = 0): string {
  return round === 0 ? `campaign-${campaignId}` : `campaign-${campaignId}-r${round}`;
}

/** The campaign and round a request id names, or undefined for a transactional request's id. */
export function parseCampaignRequestId(requestId: string): { campaignId: number; round: number } | undefined {
  const match = /^campaign-(\d{1,15})(?:-r(\d{1,6}))?$/.exec(requestId);
  return match ? { campaignId: Number(match[1]), round: match[2] === undefined ? 0 : Number(match[2]) } : undefined;
}

/** Base-36 digits of a campaign mail_id's seq: 36^7, some 78 billion recipients. */
const SEQ_DIGITS = 7;
/** Characters of the prefix a campaign round's mail_ids share (with SEQ_DIGITS, 27: a transactional one has at most 25). */
const CAMPAIGN_PREFIX_LENGTH = 20;

/**
 * The mail_ids of a campaign round's messages, by snapshot seq: stable, so a resumed page skips
 * what the ledger has. They share a prefix derived from the account and request id and end in the
 * seq, so a round's ledger rows (and their events' track_ids, core/tracking/events.ts) sit side by
 * side in the store's indexes in send order: a grouped ledger write updates a few index pages
 * instead of one per message. The same length always (27 characters after `mail_`), unlike a
 * transactional mail_id (core/sending/plan.ts: mailIdOf, at most 25), so the two never meet.
 */
export function campaignMailIds(account: string, campaignId: number, round = 0): (seq: number) => string {
  const prefix = derivedPrefix('mail', CAMPAIGN_PREFIX_LENGTH, account, campaignRequestId(campaignId, round));
  return (seq) => `${prefix}${seq.toString(36).padStart(SEQ_DIGITS, '0')}`;
}

/** The mail_id of the message to snapshot recipient `seq` in `round` (campaignMailIds). */
export function campaignMailId(account: string, campaignId: number, seq: number, round = 0): string {
  return campaignMailIds(account, campaignId, round)(seq);
}

/** The batch_id of a campaign's events (transactional ones are `<account>_transactional_<code>`). */
export function campaignBatchId(account: string, campaignId: number): string {
  return `${account}_campaign_${campaignId}`;
}
