// OWNED BY HELPER C. Stub signatures fixed by the lead; replace the bodies.
// A campaign's figures, counted from its messages' events (batch_id campaignBatchId).
import type { CampaignDoc, Store } from '../store';

/** The spec's `metrics`: counts and percentages (of sent). */
export interface CampaignMetrics {
  sent: number; sentP: number; opened: number; openedP: number; clicked: number; clickedP: number; bounced: number; bouncedP: number;
}

/** The metrics of each campaign (by id): null until it was sent (state SENDING, SENT or CANCELLED after sending began). One query for all. */
export async function campaignMetrics(_store: Store, _campaigns: CampaignDoc[]): Promise<Map<number, CampaignMetrics | null>> {
  throw new Error('not implemented yet');
}

/** GET /campaigns/{id}/metrics: the original's keys (sent, sentP, delivered, …, sharedClicked). */
export async function campaignReport(_store: Store, _campaign: CampaignDoc): Promise<Record<string, number>> {
  throw new Error('not implemented yet');
}

export type ActionType = 'ALL' | 'SENT' | 'OPEN' | 'CLICK' | 'HARD_BOUNCE' | 'SOFT_BOUNCE' | 'UNSUBSCRIBE' | 'COMPLAINT' | 'SHARE' | 'CONVERSION'
  | 'NO_OPEN' | 'NO_CLICK' | 'NO_CONVERSION';

export const ACTION_TYPES: readonly ActionType[] = [
  'ALL', 'SENT', 'OPEN', 'CLICK', 'HARD_BOUNCE', 'SOFT_BOUNCE', 'UNSUBSCRIBE', 'COMPLAINT', 'SHARE', 'CONVERSION', 'NO_OPEN', 'NO_CLICK', 'NO_CONVERSION',
];

export interface ActionsQuery { type: ActionType; q?: string; offset: number; limit: number; sortdir: 'asc' | 'desc' }

/** One row of GET /campaigns/{id}/actions (the original does not show its shape: ours, documented). */
export interface CampaignActionRow { date: string; type: ActionType; email: string; contactId: number | null; url?: string; details?: Record<string, unknown> }

/** GET /campaigns/{id}/actions: recipients' actions of one type, newest first by default. */
export async function campaignActions(_store: Store, _campaign: CampaignDoc, _query: ActionsQuery): Promise<{ items: CampaignActionRow[]; total: number }> {
  throw new Error('not implemented yet');
}
