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
import { ObjectId } from 'mongodb';
import type { Store } from '../../adapters/store/store';

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
  for (const { _id, n } of rows) {
    const day = byDay.get(_id.d);
    if (!day) continue;
    const count = GROUPED[_id.t] === 'unsubscribed' && _id.spam ? 'complained' : GROUPED[_id.t];
    day[count] += n;
  }
  for (const bounce of bounces) {
    const bouncedOn = byDay.get(dayOf(bounce.first));
    if (bouncedOn) bouncedOn.bounced += 1;
    const sentOn = byDay.get(dayOf(bounce.sentAt));
    if (!sentOn) continue;
    // A refusal at sending has no `sent` event: it was tried that day, so it counts as sent.
    if (bounce.unsent) sentOn.sent += 1;
    sentOn.delivered -= 1;
  }
  const days = [...byDay].map(([date, counts]) => {
    counts.delivered += counts.sent;
    return { date, ...counts };
  });
  const totals = zero();
  for (const day of days) for (const key of DAILY_COUNTS) totals[key] += day[key];
  return { from, to, days, totals, rates: ratesOf(totals) };
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
