// How many events of each type the campaigns' messages have, and of how many messages: one
// aggregate per account over its events of those campaigns (batch_id) and types. Per message
// (mail_id) only for the types a message may have more than once of with the same meaning
// (bounces: one per report; unsubscriptions: the page and a complaint), grouped in two steps so
// that sent, opens and clicks (hundreds of thousands of messages) stay one group per type.
import type { CampaignDoc, Store } from '../../adapters/store/store';
import { campaignBatchId } from './model';

export interface TypeCounts {
  /** Events of the type. */
  events: number;
  /** Messages with one at least (bounced and unsubscribed only; 1 for the other types). */
  messages: number;
  /** Bounced: messages with a hard bounce. */
  hard: number;
  /** Unsubscribed: messages reported as spam (reason spam_fbl). */
  complaints: number;
  /**
   * Bounced: messages refused or given up at sending, never sent. Herald writes those events with
   * timestamp = sent_timestamp (the attempt's instant); a bounce report comes after the send.
   */
  unsent: number;
}

/** Counts by track_type. */
export type EventCounts = Map<string, TypeCounts>;

const PER_MESSAGE = ['track.mail.bounced', 'track.mail.unsubscribed'];
const flag = (condition: object) => ({ $max: { $cond: [condition, 1, 0] } });

interface Row { _id: { b: string; t: string }; events: number; messages: number; hard: number; complaints: number; unsent: number }

/** The counts of each campaign, by its `_id`. */
export async function countCampaignEvents(store: Store, campaigns: CampaignDoc[], types: readonly string[]): Promise<Map<string, EventCounts>> {
  const result = new Map<string, EventCounts>(campaigns.map((campaign) => [campaign._id, new Map()]));
  const byAccount = new Map<string, CampaignDoc[]>();
  for (const campaign of campaigns) byAccount.set(campaign.account, [...(byAccount.get(campaign.account) ?? []), campaign]);
  await Promise.all([...byAccount].map(async ([account, ofAccount]) => {
    const campaignOf = new Map(ofAccount.map((campaign) => [campaignBatchId(account, campaign.id), campaign._id]));
    const rows = await store.events.aggregate<Row>([
      { $match: { account, batch_id: { $in: [...campaignOf.keys()] }, track_type: { $in: [...types] } } },
      {
        $group: {
          _id: {
            b: '$batch_id', t: '$track_type',
            m: { $cond: [{ $or: PER_MESSAGE.map((type) => ({ $eq: ['$track_type', type] })) }, '$mail_id', null] },
          },
          events: { $sum: 1 },
          hard: flag({ $eq: ['$bounce_type', 'hard'] }),
          complaints: flag({ $eq: ['$reason', 'spam_fbl'] }),
          unsent: flag({ $and: [{ $eq: ['$track_type', 'track.mail.bounced'] }, { $eq: ['$timestamp', '$sent_timestamp'] }] }),
        },
      },
      {
        $group: {
          _id: { b: '$_id.b', t: '$_id.t' },
          events: { $sum: '$events' }, messages: { $sum: 1 }, hard: { $sum: '$hard' }, complaints: { $sum: '$complaints' }, unsent: { $sum: '$unsent' },
        },
      },
    ]).toArray();
    for (const { _id, ...counts } of rows) {
      const id = campaignOf.get(_id.b);
      if (id !== undefined) result.get(id)!.set(_id.t, counts);
    }
  }));
  return result;
}
