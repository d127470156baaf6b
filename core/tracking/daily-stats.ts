// An account's per-day counts (GET /v2/{account}/stats/daily), transactional and campaign mail
// alike, from its events: one grouped aggregate over the range's events of the counted types,
// by UTC day (the first ten characters of the event's ISO timestamp) and type; bounces are read
// one row per message instead, since a message can have several bounce reports. What each
// count means:
//   sent          messages handed to the relay (`sent`) or refused by it at sending (a bounce whose
//                 timestamp is its sent_timestamp): the campaign metrics' `sent`
//   delivered     of the messages sent that day, those with no bounce (so far)
//   opened        messages opened for the first time that day (`first_opened`)
//   clicked       messages clicked for the first time that day (`first_clicked`)
//   bounced       messages whose first bounce (refusal or report, hard or soft) came that day
//   unsubscribed  unsubscriptions that day (link or one-click), complaints excluded
//   complained    complaints (feedback-loop reports: `unsubscribed` with reason spam_fbl)
//   dropped       messages never sent (suppressed address, cancelled batch): `dropped`
// The counts of messages whose history was pruned (core/retention/) were taken from their events
// by countDays, with these same rules, before they were removed: a day adds them to its own.
import { ObjectId } from 'mongodb';
import type { EventDoc, Store } from '../../adapters/store/store';
import { rolledDays } from '../retention/rollups';

export const DAILY_COUNTS = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'unsubscribed', 'complained', 'dropped'] as const;
export type DailyCounts = Record<(typeof DAILY_COUNTS)[number], number>;
export type DailyRates = Record<'delivered' | 'opened' | 'clicked' | 'bounced' | 'unsubscribed' | 'complained', number>;

export interface DailyStats {
  from: string;
  to: string;
  days: Array<{ date: string } & DailyCounts>;
  totals: DailyCounts;
  rates: DailyRates;
}

const DAY_MS = 86_400_000;
/** The day of an ISO timestamp (event timestamps are toISOString() text, UTC). */
const dayOf = (iso: string) => iso.slice(0, 10);

/** Types counted by the grouped aggregate (bounces are read per message). */
const GROUPED: Record<string, keyof DailyCounts> = {
  'track.mail.sent': 'sent',
  'track.mail.first_opened': 'opened',
  'track.mail.first_clicked': 'clicked',
  'track.mail.unsubscribed': 'unsubscribed',
  'track.mail.dropped': 'dropped',
};

interface Row { _id: { d: string; t: string; spam: boolean }; n: number }
interface Bounce { _id: string; first: string; sentAt: string; unsent: number }

const zero = (): DailyCounts => ({ sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, unsubscribed: 0, complained: 0, dropped: 0 });

/** The days from `from` to `to` (YYYY-MM-DD, both included), every day present. */
export async function dailyStats(store: Store, account: string, from: string, to: string): Promise<DailyStats> {
  const start = `${from}T00:00:00.000Z`;
  const end = new Date(Date.parse(`${to}T00:00:00.000Z`) + DAY_MS).toISOString();
  const byDay = new Map<string, DailyCounts>();
  for (let t = Date.parse(start); t < Date.parse(end); t += DAY_MS) byDay.set(dayOf(new Date(t).toISOString()), zero());

  // No event is stored before it happens: those stored over a day before the range began (allowing
  // for clocks apart) are out of it, and the {account, _id} index leaves them unread.
  const stored = { $gte: ObjectId.createFromTime(Math.floor(Date.parse(start) / 1000) - 86_400) };
  // A bounce counts on its day; its message's send is undone on the send's day, which may precede the range.
  const [rows, bounces] = await Promise.all([
    store.events.aggregate<Row>([
      { $match: { account, _id: stored, track_type: { $in: Object.keys(GROUPED) }, timestamp: { $gte: start, $lt: end } } },
      { $group: { _id: { d: { $substr: ['$timestamp', 0, 10] }, t: '$track_type', spam: { $eq: ['$reason', 'spam_fbl'] } }, n: { $sum: 1 } } },
    ]).toArray(),
    store.events.aggregate<Bounce>([
      {
        $match: {
          account, _id: stored, track_type: 'track.mail.bounced',
          $or: [{ timestamp: { $gte: start, $lt: end } }, { sent_timestamp: { $gte: start, $lt: end } }],
        },
      },
      {
        $group: {
          _id: '$mail_id', first: { $min: '$timestamp' }, sentAt: { $min: '$sent_timestamp' },
          unsent: { $max: { $cond: [{ $eq: ['$timestamp', '$sent_timestamp'] }, 1, 0] } },
        },
      },
    ]).toArray(),
  ]);
  addCounts((day) => byDay.get(day), rows, bounces);
  finish(byDay);
  for (const rolled of await rolledDays(store, account, from, to)) {
    const day = byDay.get(rolled.day);
    if (day) for (const key of DAILY_COUNTS) day[key] += rolled.counts[key] ?? 0;
  }
  const days = [...byDay].map(([date, counts]) => ({ date, ...counts }));
  const totals = zero();
  for (const day of days) for (const key of DAILY_COUNTS) totals[key] += day[key];
  return { from, to, days, totals, rates: ratesOf(totals) };
}

/** Adds the grouped rows and the bounced messages to the days `dayOf` gives (undefined: a day not counted). */
function addCounts(day: (date: string) => DailyCounts | undefined, rows: Row[], bounces: Bounce[]): void {
  for (const { _id, n } of rows) {
    const counts = day(_id.d);
    if (!counts) continue;
    const count = GROUPED[_id.t] === 'unsubscribed' && _id.spam ? 'complained' : GROUPED[_id.t];
    counts[count] += n;
  }
  for (const bounce of bounces) {
    const bouncedOn = day(dayOf(bounce.first));
    if (bouncedOn) bouncedOn.bounced += 1;
    const sentOn = day(dayOf(bounce.sentAt));
    if (!sentOn) continue;
    // A refusal at sending has no `sent` event: it was tried that day, so it counts as sent.
    if (bounce.unsent) sentOn.sent += 1;
    sentOn.delivered -= 1;
  }
}

/** delivered so far holds minus the day's bounced sends: the day's sends make it whole. */
function finish(byDay: Map<string, DailyCounts>): void {
  for (const counts of byDay.values()) counts.delivered += counts.sent;
}

/** The event fields the day counts read. */
export type DayCountedEvent = Pick<EventDoc, 'track_type' | 'timestamp' | 'sent_timestamp' | 'mail_id'> & { reason?: unknown };

/**
 * The day counts of some messages' events, by the rules above (the rows and bounces the two
 * aggregates would give, built here): every event of each message must be among them, since a
 * message's bounces count once. Only days with a count are present.
 */
export function countDays(events: DayCountedEvent[]): Map<string, DailyCounts> {
  const grouped = new Map<string, Row>();
  const bounced = new Map<string, Bounce>();
  for (const event of events) {
    if (event.track_type === 'track.mail.bounced') {
      const unsent = event.timestamp === event.sent_timestamp ? 1 : 0;
      const known = bounced.get(event.mail_id);
      if (!known) bounced.set(event.mail_id, { _id: event.mail_id, first: event.timestamp, sentAt: event.sent_timestamp, unsent });
      else {
        if (event.timestamp < known.first) known.first = event.timestamp;
        if (event.sent_timestamp < known.sentAt) known.sentAt = event.sent_timestamp;
        known.unsent = Math.max(known.unsent, unsent);
      }
      continue;
    }
    if (!(event.track_type in GROUPED)) continue;
    const id = { d: dayOf(event.timestamp), t: event.track_type, spam: event.reason === 'spam_fbl' };
    const key = `${id.d}|${id.t}|${id.spam}`;
    const row = grouped.get(key) ?? { _id: id, n: 0 };
    row.n += 1;
    grouped.set(key, row);
  }
  const byDay = new Map<string, DailyCounts>();
  addCounts((date) => {
    if (!byDay.has(date)) byDay.set(date, zero());
    return byDay.get(date);
  }, [...grouped.values()], [...bounced.values()]);
  finish(byDay);
  return byDay;
}

/** Fractions 0..1; 0 when the denominator is 0. */
export function ratesOf(totals: DailyCounts): DailyRates {
  const of = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);
  return {
    delivered: of(totals.delivered, totals.sent),
    opened: of(totals.opened, totals.delivered),
    clicked: of(totals.clicked, totals.delivered),
    bounced: of(totals.bounced, totals.sent),
    unsubscribed: of(totals.unsubscribed, totals.delivered),
    complained: of(totals.complained, totals.delivered),
  };
}
