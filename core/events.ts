import { ObjectId } from 'mongodb';
import { derivedId } from './ids';
import { insertSkippingDuplicates, type EventDoc, type Store } from './store';

export type TrackType =
  | 'track.mail.dropped' | 'track.mail.sent' | 'track.mail.bounced'
  | 'track.mail.opened' | 'track.mail.first_opened' | 'track.mail.clicked' | 'track.mail.first_clicked'
  | 'track.mail.unsubscribed' | 'track.mail.viewed_online' | 'track.mail.shared';

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
 * An event with the spec's general fields. `uniqueness` makes the track_id deterministic
 * (e.g. one `sent` per mail_id), so an activity that runs twice records it once.
 */
export function buildEvent(
  type: TrackType,
  subject: EventSubject,
  at: Date,
  uniqueness: string,
  extra: Record<string, unknown> = {},
): EventDoc {
  return {
    _id: new ObjectId(),
    track_id: derivedId('event', subject.mail_id, type, uniqueness),
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

/** Stores events; one already stored (same track_id) is skipped, so retries are harmless. */
export function recordEvents(store: Store, events: EventDoc[]): Promise<void> {
  return insertSkippingDuplicates(store.events, events);
}
