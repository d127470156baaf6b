import { isPast, parseISO } from 'date-fns';

// The campaign records the console reads, as the account API answers them (api/account/campaign-views.ts).

export type CampaignState = 'DRAFT' | 'SCHEDULED' | 'PENDING_APPROVAL' | 'SENDING' | 'SENT' | 'CANCELLED';
export const CAMPAIGN_STATES: CampaignState[] = ['DRAFT', 'SCHEDULED', 'PENDING_APPROVAL', 'SENDING', 'SENT', 'CANCELLED'];

export interface CampaignMetrics { sent: number; sentP: number; opened: number; openedP: number; clicked: number; clickedP: number; bounced: number; bouncedP: number }

export interface CampaignSummary {
  id: number; name: string; description: string; tags: string[]; state: CampaignState; paused?: boolean;
  recipients: number | null; launchMode: 'NOW' | 'SCHEDULED'; launchDate: string | null; created: string; lastModified: string;
  archived: string | null; metrics: CampaignMetrics | null;
}

export interface Audience { lists: number[]; interests: number[]; campaigns: Array<number | { id: number; action: string }> }

export interface CampaignContent {
  id: number; type: string; subject: string; from: string; fromName: string; replyTo: string; replyToName: string; unsubscribeText: string;
}

export interface Campaign extends CampaignSummary {
  options: Record<string, string>;
  include: Audience;
  exclude: Audience;
  contents: CampaignContent[];
}

export interface Check { valid: boolean; message: string; count?: number }
export interface Validation {
  valid: boolean;
  tests: Record<string, { valid: boolean; message: string | null; warnings: Array<{ code: string; message: string }> }>;
  checks: Record<string, Check>;
}

/** A named thing to choose in an audience (a list or an interest). */
export interface Named { id: number; name: string }

export const campaignPath = (id: number | string, rest = '') => `/campaigns/${id}${rest}`;

/** States in which a launch is under way (pause, resume, cancel apply). */
export const LAUNCHED: CampaignState[] = ['SCHEDULED', 'PENDING_APPROVAL', 'SENDING'];

/** Whether the campaign is being sent, or is due to be (a launch date passed or none): its figures are moving. */
export function isSending(campaign: Pick<CampaignSummary, 'state' | 'launchDate'>): boolean {
  if (campaign.state === 'SENDING') return true;
  return LAUNCHED.includes(campaign.state) && (!campaign.launchDate || isPast(parseISO(campaign.launchDate)));
}
