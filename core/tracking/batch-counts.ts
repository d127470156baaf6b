// How many events of each type the messages of some batches (batch_id: a campaign's, a
// transactional send's) have, and of how many messages: one aggregate over the account's events of
// those batches and types. Per message
// (mail_id) only for the types a message may have more than once of with the same meaning
// (bounces: one per report; unsubscriptions: the page and a complaint), grouped in two steps so
// that sent, opens and clicks (hundreds of thousands of messages) stay one group per type.
// Campaign and automation batches keep the counts of their messages whose history was pruned
// (core/retention/), taken by countBatchesOf with these same rules: they are added in.
import type { EventDoc, Store } from '../../adapters/store/store';
import { rolledBatches } from '../retention/rollups';

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
  for (const [batchId, rolled] of await rolledBatches(store, account, batchIds)) {
    if (!result.has(batchId)) result.set(batchId, new Map());
    const counts = result.get(batchId)!;
    for (const type of types) {
      const old = rolled.get(type);
      if (old) counts.set(type, addTypeCounts(type, counts.get(type), old));
    }
  }
  return result;
}

const isPerMessage = (type: string) => PER_MESSAGE.includes(type);

/** Counts of the same batch and type from two sets of messages: per-message counts add; the other types have one group (messages 1). */
export function addTypeCounts(type: string, a: TypeCounts | undefined, b: TypeCounts): TypeCounts {
  if (!a) return { ...b };
  if (isPerMessage(type)) {
    return { events: a.events + b.events, messages: a.messages + b.messages, hard: a.hard + b.hard, complaints: a.complaints + b.complaints, unsent: a.unsent + b.unsent };
  }
  return {
    events: a.events + b.events, messages: Math.max(a.messages, b.messages),
    hard: Math.max(a.hard, b.hard), complaints: Math.max(a.complaints, b.complaints), unsent: Math.max(a.unsent, b.unsent),
  };
}

/** The event fields the batch counts read. */
export type BatchCountedEvent = Pick<EventDoc, 'batch_id' | 'track_type' | 'timestamp' | 'sent_timestamp' | 'mail_id'> & { bounce_type?: unknown; reason?: unknown };

/**
 * The counts of some messages' events by batch and type, as the aggregate above groups them:
 * every event of each message must be among them, since a message counts once in its per-message types.
 */
export function countBatchesOf(events: BatchCountedEvent[]): Map<string, EventCounts> {
  const groups = new Map<string, { b: string; t: string; events: number; hard: number; complaints: number; unsent: number }>();
  for (const event of events) {
    const t = event.track_type;
    const key = `${event.batch_id}\u0000${t}\u0000${isPerMessage(t) ? event.mail_id : ''}`;
    const group = groups.get(key) ?? { b: event.batch_id, t, events: 0, hard: 0, complaints: 0, unsent: 0 };
    group.events += 1;
    if (event.bounce_type === 'hard') group.hard = 1;
    if (event.reason === 'spam_fbl') group.complaints = 1;
    if (t === 'track.mail.bounced' && event.timestamp === event.sent_timestamp) group.unsent = 1;
    groups.set(key, group);
  }
  const result = new Map<string, EventCounts>();
  for (const { b, t, ...group } of groups.values()) {
    if (!result.has(b)) result.set(b, new Map());
    const counts = result.get(b)!;
    const known = counts.get(t) ?? { events: 0, messages: 0, hard: 0, complaints: 0, unsent: 0 };
    counts.set(t, {
      events: known.events + group.events, messages: known.messages + 1,
      hard: known.hard + group.hard, complaints: known.complaints + group.complaints, unsent: known.unsent + group.unsent,
    });
  }
  return result;
}
