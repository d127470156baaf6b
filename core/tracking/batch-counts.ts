// How many events of each type the messages of some batches (batch_id: a campaign's, a
// transactional send's) have, and of how many messages: one aggregate over the account's events of
// those batches and types. Per message
// (mail_id) only for the types a message may have more than once of with the same meaning
// (bounces: one per report; unsubscriptions: the page and a complaint), grouped in two steps so
// that sent, opens and clicks (hundreds of thousands of messages) stay one group per type.
import type { Store } from '../../adapters/store/store';

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

/** The counts of each batch of the account, by batch id (a batch without events is absent). */
export async function countBatchEvents(store: Store, account: string, batchIds: string[], types: readonly string[]): Promise<Map<string, EventCounts>> {
  const result = new Map<string, EventCounts>();
  if (batchIds.length === 0) return result;
  const rows = await store.events.aggregate<Row>([
    { $match: { account, batch_id: { $in: batchIds }, track_type: { $in: [...types] } } },
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
    if (!result.has(_id.b)) result.set(_id.b, new Map());
    result.get(_id.b)!.set(_id.t, counts);
  }
  return result;
}
