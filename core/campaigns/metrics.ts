// A campaign's figures, counted from its messages' events (batch_id campaignBatchId), in one
// aggregate per account over the events of the campaigns asked for (./event-counts.ts). What they
// count:
//   sent       messages that left for their recipient: `sent` events, plus messages the relay
//              refused at sending (a bounce event with no send before it)
//   opened     recipients who opened (first_opened: one per message); clicked likewise
//   bounced    messages with a bounce (each once, however many reports), hard or soft
//   P keys     percentages of sent, 2 decimals (sentP: of the recipients in the snapshot)
// A message of a resend round is a message of its own: a recipient refused at the launch and sent
// in a resend counts twice in sent and once in bounced.
import type { CampaignDoc, Store } from '../../adapters/store/store';
import { countCampaignEvents, type EventCounts, type TypeCounts } from './event-counts';

export { campaignActions, ACTION_TYPES, type ActionType, type ActionsQuery, type CampaignActionRow } from './actions';

/** The spec's `metrics`: counts and percentages (of sent). */
export interface CampaignMetrics {
  sent: number; sentP: number; opened: number; openedP: number; clicked: number; clickedP: number; bounced: number; bouncedP: number;
}

/** Whether the campaign's sending began: SENDING, SENT, or CANCELLED once its snapshot was taken. Before, its metrics are null. */
export function sendingBegan(campaign: Pick<CampaignDoc, 'state' | 'launch'>): boolean {
  if (campaign.state === 'SENDING' || campaign.state === 'SENT') return true;
  return campaign.state === 'CANCELLED' && typeof campaign.launch?.snapshotTotal === 'number';
}

/** `part` as a percentage of `whole`, 2 decimals; 0 of nothing. */
export function percent(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 10_000) / 100 : 0;
}

const METRIC_TYPES = ['track.mail.sent', 'track.mail.first_opened', 'track.mail.first_clicked', 'track.mail.bounced'] as const;
const NONE: TypeCounts = { events: 0, messages: 0, hard: 0, complaints: 0, unsent: 0 };
const of = (counts: EventCounts | undefined, type: string): TypeCounts => counts?.get(type) ?? NONE;

/** Messages that left (see the head of this file). */
const sentOf = (counts: EventCounts | undefined) => of(counts, 'track.mail.sent').events + of(counts, 'track.mail.bounced').unsent;
const recipientsOf = (campaign: CampaignDoc) => campaign.launch?.snapshotTotal ?? campaign.recipients ?? 0;

function metricsOf(campaign: CampaignDoc, counts: EventCounts | undefined): CampaignMetrics {
  const sent = sentOf(counts);
  const opened = of(counts, 'track.mail.first_opened').events;
  const clicked = of(counts, 'track.mail.first_clicked').events;
  const bounced = of(counts, 'track.mail.bounced').messages;
  return {
    sent, sentP: percent(sent, recipientsOf(campaign)),
    opened, openedP: percent(opened, sent),
    clicked, clickedP: percent(clicked, sent),
    bounced, bouncedP: percent(bounced, sent),
  };
}

/** The metrics of each campaign (by id): null until it was sent (state SENDING, SENT or CANCELLED after sending began). One query for all. */
export async function campaignMetrics(store: Store, campaigns: CampaignDoc[]): Promise<Map<number, CampaignMetrics | null>> {
  const result = new Map<number, CampaignMetrics | null>(campaigns.map((campaign) => [campaign.id, null]));
  const begun = campaigns.filter(sendingBegan);
  if (begun.length === 0) return result;
  const counts = await countCampaignEvents(store, begun, METRIC_TYPES);
  for (const campaign of begun) result.set(campaign.id, metricsOf(campaign, counts.get(campaign._id)));
  return result;
}

const REPORT_TYPES = [
  ...METRIC_TYPES, 'track.mail.opened', 'track.mail.clicked', 'track.mail.viewed_online', 'track.mail.shared', 'track.mail.unsubscribed',
] as const;

/**
 * GET /campaigns/{id}/metrics: the original's keys. Beyond the metrics: delivered = sent −
 * bounced; openedT and clickedT every open and click (repeats included); viewsOnline and shared
 * their events; ctor clicks per open (clicked of opened, %); bouncedHard and bouncedSoft the
 * bounced messages with a hard bounce and the others; complained the messages reported as spam
 * (feedback reports), unsubscribed the other unsubscriptions from the message. Herald cannot know
 * conversions (no purchase is reported to it) nor what happened to a shared copy (a share links
 * to the sharer's own online version): converted, convertedP, sharedOpened and sharedClicked are 0.
 * All zeros before sending began.
 */
export async function campaignReport(store: Store, campaign: CampaignDoc): Promise<Record<string, number>> {
  const counts = sendingBegan(campaign) ? (await countCampaignEvents(store, [campaign], REPORT_TYPES)).get(campaign._id) : undefined;
  const { sent, sentP, opened, openedP, clicked, clickedP, bounced, bouncedP } = metricsOf(campaign, counts);
  const bouncedHard = of(counts, 'track.mail.bounced').hard;
  const bouncedSoft = bounced - bouncedHard;
  const unsubscriptions = of(counts, 'track.mail.unsubscribed');
  const complained = unsubscriptions.complaints;
  const unsubscribed = unsubscriptions.messages - complained;
  const delivered = Math.max(0, sent - bounced);
  return {
    sent, sentP,
    delivered, deliveredP: percent(delivered, sent),
    opened, openedP, openedT: of(counts, 'track.mail.opened').events,
    viewsOnline: of(counts, 'track.mail.viewed_online').events,
    clicked, clickedP, clickedT: of(counts, 'track.mail.clicked').events,
    ctor: percent(clicked, opened),
    converted: 0, convertedP: 0,
    bounced, bouncedP,
    bouncedHard, bouncedHardP: percent(bouncedHard, sent),
    bouncedSoft, bouncedSoftP: percent(bouncedSoft, sent),
    complained, complainedP: percent(complained, sent),
    unsubscribed, unsubscribedP: percent(unsubscribed, sent),
    shared: of(counts, 'track.mail.shared').events,
    sharedOpened: 0, sharedClicked: 0,
  };
}
