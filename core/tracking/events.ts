import { ObjectId } from 'mongodb';
import { derivedPrefix } from '../shared/ids';
import { metrics } from '../../adapters/metrics/registry';
import { insertSkippingDuplicates, type EventDoc, type Store } from '../../adapters/store/store';
import { noteLateWrites } from './late-writes';
import { TRACK_TYPES, type TrackType } from './track-types';

export { TRACK_TYPES, type TrackType };

export interface EventSubject {
  account: string;
  batch_id: string;
  mail_id: string;
  email: string;
  sent_timestamp: Date;
  tags: string[];
  custom_args: Record<string, string>;
  mta: string;
  /** `transactional` unless the send engine sends for something else (a campaign). */
  mail_type?: string;
}

/**
 * The track_id of the one event of `type` and `uniqueness` a message can have: its mail_id's
 * characters, then a short digest of the rest, so the events of a campaign's messages (whose
 * mail_ids share a prefix and end in their seq) sit side by side in the store's track_id index.
 */
function deterministicTrackId(mailId: string, type: TrackType, uniqueness: string): string {
  return `event_${mailId.slice(mailId.indexOf('_') + 1)}${trackIdDigest(type, uniqueness)}`;
}

/** Digests kept: a few types × uniqueness values the send engine uses ('sent', 'suppressed'…); reports' own values are not kept. */
const MAX_DIGESTS = 256;
const digests = new Map<string, string>();

/** The digest part of a deterministic track_id: the same for every message of a type and uniqueness, so hashed once, not per message. */
function trackIdDigest(type: TrackType, uniqueness: string): string {
  const key = `${type}\u0000${uniqueness}`;
  let digest = digests.get(key);
  if (digest === undefined) {
    digest = derivedPrefix('', 10, type, uniqueness);
    if (digests.size < MAX_DIGESTS) digests.set(key, digest);
  }
  return digest;
}

/**
 * An event with the spec's general fields. `uniqueness` makes the track_id deterministic
 * (e.g. one `sent` per mail_id), so an activity that runs twice records it once.
 */
export function buildEvent(
  type: TrackType,
  subject: EventSubject,
  at: Date,
  uniqueness: string,
  extra: Record<string, unknown> = {},
  /** A track_id made by the caller instead (no hash to compute: see eventOfSentMail). */
  trackId?: string,
): EventDoc {
  return {
    _id: new ObjectId(),
    track_id: trackId ?? deterministicTrackId(subject.mail_id, type, uniqueness),
    track_type: type,
    timestamp: at.toISOString(),
    sent_timestamp: subject.sent_timestamp.toISOString(),
    hour_of_day: at.getUTCHours(),
    day_of_week: at.getUTCDay() === 0 ? 7 : at.getUTCDay(), // ISO: Monday 1 … Sunday 7
    batch_id: subject.batch_id,
    mail_id: subject.mail_id,
    mail_type: subject.mail_type ?? 'transactional',
    account: subject.account,
    email: subject.email,
    domain: subject.email.slice(subject.email.lastIndexOf('@') + 1).toLowerCase(),
    tags: subject.tags,
    custom_args: subject.custom_args,
    mta: subject.mta,
    ...extra,
  };
}

/** The general fields every event carries (the spec's list), in its order. */
export const GENERAL_FIELDS = [
  'timestamp', 'sent_timestamp', 'hour_of_day', 'day_of_week', 'track_id', 'track_type', 'batch_id', 'mail_id', 'mail_type',
  'account', 'email', 'domain', 'tags', 'custom_args', 'mta',
] as const;

/**
 * The subject of a message as its ledger row's event recorded it (core/sending/ledger.ts): what
 * an event that happens after the send (an open, a click, a bounce report) says of its message.
 */
export function subjectOfSentEvent(sent: EventDoc): EventSubject {
  return {
    account: sent.account, batch_id: sent.batch_id, mail_id: sent.mail_id, email: sent.email,
    sent_timestamp: new Date(sent.sent_timestamp), tags: sent.tags, custom_args: sent.custom_args, mta: sent.mta, mail_type: sent.mail_type,
  };
}

/**
 * An event that happens to a sent message: its general fields from the message's ledger event.
 * `identity` makes its track_id: a string, deterministic per message, so a unique index keeps
 * exactly one (`first_opened` once per mail_id); an ObjectId, the hit's own (`event_<hex>`), so a
 * hit recorded twice (a retried request, a held hit swept twice) is stored once; undefined, random.
 */
export function eventOfSentMail(
  sent: EventDoc, type: TrackType, at: Date, identity: string | ObjectId | undefined, extra: Record<string, unknown> = {},
): EventDoc {
  if (typeof identity === 'string') return buildEvent(type, subjectOfSentEvent(sent), at, identity, extra);
  // No hash: every open and click makes one, so this is the tracking hot path.
  return buildEvent(type, subjectOfSentEvent(sent), at, '', extra, `event_${(identity ?? new ObjectId()).toHexString()}`);
}

/**
 * Stores events; one already stored (same track_id) is skipped, so retries are harmless. Returns how
 * many were new. Those that landed too late for webhook delivery's settle window are recorded (./late-writes.ts).
 */
export async function recordEvents(store: Store, events: EventDoc[]): Promise<number> {
  const inserted = await insertSkippingDuplicates(store.events, events);
  await noteLateWrites(store, events);
  // Per type when all were new (the usual case); a batch with duplicates is counted in total under its first type.
  if (inserted === events.length) for (const event of events) metrics.eventsStored.inc({ track_type: event.track_type });
  else if (inserted > 0) metrics.eventsStored.inc({ track_type: events[0].track_type }, inserted);
  return inserted;
}
