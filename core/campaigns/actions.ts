// GET /campaigns/{id}/actions: what the campaign's recipients did, one row per event of the chosen
// type, from the campaign's events (batch_id campaignBatchId), newest first by default (event
// order). OPEN and CLICK are each recipient's first open and first click (one row per message);
// ALL is every event of a message (sent, each open and click, bounces, unsubscriptions, shares),
// most useful with `q` (the email, `*` a wildcard). NO_OPEN and NO_CLICK are the sent messages
// without a first open or click. Herald knows no conversions: CONVERSION is always empty and
// NO_CONVERSION is every sent message.
import type { Filter } from 'mongodb';
import type { CampaignDoc, EventDoc, Store } from '../../adapters/store/store';
import { campaignBatchId } from './model';

export type ActionType = 'ALL' | 'SENT' | 'OPEN' | 'CLICK' | 'HARD_BOUNCE' | 'SOFT_BOUNCE' | 'UNSUBSCRIBE' | 'COMPLAINT' | 'SHARE' | 'CONVERSION'
  | 'NO_OPEN' | 'NO_CLICK' | 'NO_CONVERSION';

export const ACTION_TYPES: readonly ActionType[] = [
  'ALL', 'SENT', 'OPEN', 'CLICK', 'HARD_BOUNCE', 'SOFT_BOUNCE', 'UNSUBSCRIBE', 'COMPLAINT', 'SHARE', 'CONVERSION', 'NO_OPEN', 'NO_CLICK', 'NO_CONVERSION',
];

export interface ActionsQuery { type: ActionType; q?: string; offset: number; limit: number; sortdir: 'asc' | 'desc' }

/** One row of GET /campaigns/{id}/actions (the original does not show its shape: ours, documented). */
export interface CampaignActionRow { date: string; type: ActionType; email: string; contactId: number | null; url?: string; details?: Record<string, unknown> }

const SPAM = 'spam_fbl';

/** The events each type lists (ALL: every kind that is an action). */
const SELECTIONS: Partial<Record<ActionType, Filter<EventDoc>>> = {
  ALL: { track_type: { $in: ['track.mail.sent', 'track.mail.opened', 'track.mail.clicked', 'track.mail.bounced', 'track.mail.unsubscribed', 'track.mail.shared'] } },
  SENT: { track_type: 'track.mail.sent' },
  NO_CONVERSION: { track_type: 'track.mail.sent' },
  OPEN: { track_type: 'track.mail.first_opened' },
  CLICK: { track_type: 'track.mail.first_clicked' },
  HARD_BOUNCE: { track_type: 'track.mail.bounced', bounce_type: 'hard' },
  SOFT_BOUNCE: { track_type: 'track.mail.bounced', bounce_type: 'soft' },
  UNSUBSCRIBE: { track_type: 'track.mail.unsubscribed', reason: { $ne: SPAM } },
  COMPLAINT: { track_type: 'track.mail.unsubscribed', reason: SPAM },
  SHARE: { track_type: 'track.mail.shared' },
};

/** The sent messages lacking an event of this type. */
const LACKING: Partial<Record<ActionType, string>> = { NO_OPEN: 'track.mail.first_opened', NO_CLICK: 'track.mail.first_clicked' };

/** An event as the action it is. */
function actionOf(event: EventDoc, listed: ActionType): ActionType {
  if (listed !== 'ALL') return listed;
  switch (event.track_type) {
    case 'track.mail.opened': return 'OPEN';
    case 'track.mail.clicked': return 'CLICK';
    case 'track.mail.bounced': return event.bounce_type === 'hard' ? 'HARD_BOUNCE' : 'SOFT_BOUNCE';
    case 'track.mail.unsubscribed': return event.reason === SPAM ? 'COMPLAINT' : 'UNSUBSCRIBE';
    case 'track.mail.shared': return 'SHARE';
    default: return 'SENT';
  }
}

function detailsOf(event: EventDoc): Record<string, unknown> | undefined {
  if (event.track_type === 'track.mail.bounced') return { bounce_type: event.bounce_type, message: event.message };
  if (event.track_type === 'track.mail.unsubscribed') return { reason: event.reason };
  if (event.track_type === 'track.mail.shared') return { shared_on: event.shared_on };
  return undefined;
}

/**
 * `*` matches anything, the rest literally, the whole address, any case (the account API's `q`
 * with wildcard, api/account/list-options.ts). The string form of $regex, as the embedded store wants it.
 */
function emailPattern(q: string): { $regex: string; $options: 'i' } {
  const body = q.replace(/\*+/g, '*').split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return { $regex: `^${body}$`, $options: 'i' };
}

/** GET /campaigns/{id}/actions: recipients' actions of one type, newest first by default. */
export async function campaignActions(store: Store, campaign: CampaignDoc, query: ActionsQuery): Promise<{ items: CampaignActionRow[]; total: number }> {
  const { account } = campaign;
  const base: Filter<EventDoc> = {
    account, batch_id: campaignBatchId(account, campaign.id), ...(query.q ? { email: emailPattern(query.q) } : {}),
  };
  const order = query.sortdir === 'asc' ? 1 : -1;
  let events: EventDoc[];
  let total: number;
  const lacking = LACKING[query.type];
  if (lacking) {
    // Sent messages minus those with the event: both sets read once, compared here.
    const [sent, had] = await Promise.all([
      store.events.find({ ...base, track_type: 'track.mail.sent' }).sort({ _id: order }).toArray(),
      store.events.find({ account, batch_id: base.batch_id, track_type: lacking }).project<{ mail_id: string }>({ _id: 0, mail_id: 1 }).toArray(),
    ]);
    const done = new Set(had.map((event) => event.mail_id));
    const without = sent.filter((event) => !done.has(event.mail_id));
    total = without.length;
    events = without.slice(query.offset, query.offset + query.limit);
  } else if (query.type === 'CONVERSION' || !SELECTIONS[query.type]) {
    return { items: [], total: 0 };
  } else {
    const filter = { ...base, ...SELECTIONS[query.type] };
    [events, total] = await Promise.all([
      store.events.find(filter).sort({ _id: order }).skip(query.offset).limit(query.limit).toArray(),
      store.events.countDocuments(filter),
    ]);
  }
  const contactIds = await contactIdsOf(store, account, events.map((event) => event.email));
  const type = lacking ? query.type : undefined;
  return {
    total,
    items: events.map((event) => {
      const details = type ? undefined : detailsOf(event);
      return {
        date: event.timestamp,
        type: type ?? actionOf(event, query.type),
        email: event.email,
        contactId: contactIds.get(event.email.toLowerCase()) ?? null,
        ...(typeof event.url === 'string' ? { url: event.url } : {}),
        ...(details ? { details } : {}),
      };
    }),
  };
}

/** The account's contact id of each address (a page's worth: one lookup each on the unique {account, email} index). */
async function contactIdsOf(store: Store, account: string, emails: string[]): Promise<Map<string, number>> {
  const unique = [...new Set(emails.map((email) => email.toLowerCase()))];
  const found = await Promise.all(unique.map((email) => store.contacts.findOne({ account, email }, { projection: { _id: 0, id: 1 } })));
  return new Map(unique.flatMap((email, index) => (found[index] ? [[email, found[index]!.id] as [string, number]] : [])));
}
