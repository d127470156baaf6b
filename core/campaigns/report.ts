// GET /campaigns/{id}/report: what the console's campaign report shows, in one answer: the
// metrics (the same as GET …/metrics, ./metrics.ts), opens and clicks over time, the most clicked
// links, and the latest bounces and unsubscriptions. Everything is read from the campaign's events
// (batch_id) by three aggregates and two short finds, run at once.
//
// Timeline buckets (UTC): hourly from the hour of the campaign's first sent message for 72 hours,
// then daily: a bucket a day starting at 00:00, except the first, which starts where the hourly
// ones end and runs to the next 00:00 (each bucket's `time` is its start). Buckets run to the last one with an event, empty ones included (zeros). `opened`
// and `clicked` are recipients' first opens and clicks (they add up to the metrics' opened and
// clicked); `openedT` and `clickedT` every open and click; `sent` the messages sent.
// Messages whose history was pruned (core/retention/) left their hours and links (reportPartsOf,
// the most clicked LINKS_KEPT of them), added in here; the latest bounces and unsubscriptions are
// those still stored.
import type { CampaignDoc, EventDoc, Store } from '../../adapters/store/store';
import { rolledReport } from '../retention/rollups';
import { campaignReport, sendingBegan } from './metrics';
import { campaignBatchId } from './model';

export const HOURLY_HOURS = 72;
export const TOP_LINKS = 20;
export const LATEST_ROWS = 100;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const TIMELINE_TYPES = {
  'track.mail.sent': 'sent', 'track.mail.first_opened': 'opened', 'track.mail.first_clicked': 'clicked',
  'track.mail.opened': 'openedT', 'track.mail.clicked': 'clickedT',
} as const;
type Counted = (typeof TIMELINE_TYPES)[keyof typeof TIMELINE_TYPES];

export interface TimelineBucket { time: string; sent: number; opened: number; clicked: number; openedT: number; clickedT: number }

const emptyBucket = (time: number): TimelineBucket => ({ time: new Date(time).toISOString(), sent: 0, opened: 0, clicked: 0, openedT: 0, clickedT: 0 });

/** Hour counts (by the hour's start, ms) made into the buckets described above. */
export function bucketTimeline(hours: Map<number, Partial<Record<Counted, number>>>, launchHour?: number): TimelineBucket[] {
  if (hours.size === 0) return [];
  const first = launchHour ?? Math.min(...hours.keys());
  const last = Math.max(...hours.keys());
  const hourlyEnd = first + HOURLY_HOURS * HOUR_MS;
  // Buckets start where the previous one ends: the first day's at hourlyEnd, the others at 00:00.
  const bucketOf = (hour: number) => (hour < hourlyEnd ? hour : Math.max(hourlyEnd, Math.floor(hour / DAY_MS) * DAY_MS));
  const buckets = new Map<number, TimelineBucket>();
  for (let hour = Math.min(first, ...hours.keys()); hour <= last; hour += HOUR_MS) {
    const start = bucketOf(hour);
    if (!buckets.has(start)) buckets.set(start, emptyBucket(start));
  }
  for (const [hour, counts] of hours) {
    const bucket = buckets.get(bucketOf(hour))!;
    for (const [key, n] of Object.entries(counts) as Array<[Counted, number]>) bucket[key] += n;
  }
  return [...buckets.values()];
}

/** The links a campaign keeps of its pruned messages: the most clicked. */
export const LINKS_KEPT = 100;

export type HourCounts = Partial<Record<Counted, number>>;
export interface LinkCounts { url: string; clicks: number; uniqueClicks: number }

/** The event fields the timeline and the links read. */
export type ReportedEvent = Pick<EventDoc, 'track_type' | 'timestamp' | 'mail_id'> & { url?: unknown };

/**
 * The timeline hours (`YYYY-MM-DDTHH`) and the links' clicks of some messages' events, as the
 * aggregates below count them: every event of each message must be among them (a message counts
 * once in a link's uniqueClicks).
 */
export function reportPartsOf(events: ReportedEvent[]): { hours: Record<string, HourCounts>; links: LinkCounts[] } {
  const hours: Record<string, HourCounts> = {};
  const links = new Map<string, LinkCounts & { mails: Set<string> }>();
  for (const event of events) {
    const key = TIMELINE_TYPES[event.track_type as keyof typeof TIMELINE_TYPES];
    if (key) {
      const hour = (hours[event.timestamp.slice(0, 13)] ??= {});
      hour[key] = (hour[key] ?? 0) + 1;
    }
    if (event.track_type === 'track.mail.clicked' && typeof event.url === 'string') {
      const link = links.get(event.url) ?? { url: event.url, clicks: 0, uniqueClicks: 0, mails: new Set() };
      link.clicks += 1;
      link.mails.add(event.mail_id);
      link.uniqueClicks = link.mails.size;
      links.set(event.url, link);
    }
  }
  return { hours, links: [...links.values()].map(({ url, clicks, uniqueClicks }) => ({ url, clicks, uniqueClicks })) };
}

/** Links by most clicks, then most recipients, then URL. */
export const byClicks = (a: LinkCounts, b: LinkCounts) => b.clicks - a.clicks || b.uniqueClicks - a.uniqueClicks || a.url.localeCompare(b.url);

/** The clicks of the same links from two sets of messages, added by URL. */
export function addLinks(a: LinkCounts[], b: LinkCounts[]): LinkCounts[] {
  const byUrl = new Map(a.map((link) => [link.url, { ...link }]));
  for (const link of b) {
    const known = byUrl.get(link.url);
    if (known) {
      known.clicks += link.clicks;
      known.uniqueClicks += link.uniqueClicks;
    } else byUrl.set(link.url, { ...link });
  }
  return [...byUrl.values()].sort(byClicks);
}

export interface CampaignReportData {
  metrics: Record<string, number>;
  timeline: TimelineBucket[];
  topLinks: Array<{ url: string; clicks: number; uniqueClicks: number }>;
  bounces: Array<{ email: string; time: string; type: string; reason: string | null }>;
  unsubscribes: Array<{ email: string; time: string; reason: string | null }>;
}

export async function campaignReportData(store: Store, campaign: CampaignDoc): Promise<CampaignReportData> {
  const began = sendingBegan(campaign);
  const metricsPromise = campaignReport(store, campaign);
  if (!began) return { metrics: await metricsPromise, timeline: [], topLinks: [], bounces: [], unsubscribes: [] };
  const { account } = campaign;
  const base = { account, batch_id: campaignBatchId(account, campaign.id) };
  const [metrics, rolled, hourRows, linkRows, bounces, unsubscribes] = await Promise.all([
    metricsPromise,
    rolledReport(store, account, base.batch_id),
    // The hour is the ISO timestamp's first 13 characters ("2026-05-04T13").
    store.events.aggregate<{ _id: { t: keyof typeof TIMELINE_TYPES; h: string }; n: number }>([
      { $match: { ...base, track_type: { $in: Object.keys(TIMELINE_TYPES) } } },
      { $group: { _id: { t: '$track_type', h: { $substr: ['$timestamp', 0, 13] } }, n: { $sum: 1 } } },
    ]).toArray(),
    // Clicks per link, and per message first so each recipient counts once in uniqueClicks.
    store.events.aggregate<{ _id: string; clicks: number; uniqueClicks: number }>([
      { $match: { ...base, track_type: 'track.mail.clicked' } },
      { $group: { _id: { u: '$url', m: '$mail_id' }, n: { $sum: 1 } } },
      { $group: { _id: '$_id.u', clicks: { $sum: '$n' }, uniqueClicks: { $sum: 1 } } },
    ]).toArray(),
    store.events.find({ ...base, track_type: 'track.mail.bounced' }).project<{ email: string; timestamp: string; bounce_type?: string; message?: string }>(
      { _id: 0, email: 1, timestamp: 1, bounce_type: 1, message: 1 },
    ).sort({ _id: -1 }).limit(LATEST_ROWS).toArray(),
    store.events.find({ ...base, track_type: 'track.mail.unsubscribed' }).project<{ email: string; timestamp: string; reason?: string }>(
      { _id: 0, email: 1, timestamp: 1, reason: 1 },
    ).sort({ _id: -1 }).limit(LATEST_ROWS).toArray(),
  ]);

  const hours = new Map<number, Partial<Record<Counted, number>>>();
  let launchHour: number | undefined;
  const count = (h: string, key: Counted, n: number) => {
    const hour = Date.parse(`${h}:00:00.000Z`);
    if (Number.isNaN(hour)) return;
    const counts = hours.get(hour) ?? {};
    counts[key] = (counts[key] ?? 0) + n;
    hours.set(hour, counts);
    if (key === 'sent' && (launchHour === undefined || hour < launchHour)) launchHour = hour;
  };
  for (const { _id, n } of hourRows) count(_id.h, TIMELINE_TYPES[_id.t], n);
  for (const [h, counts] of Object.entries(rolled.hours)) for (const [key, n] of Object.entries(counts)) count(h, key as Counted, n);
  const stored = linkRows.filter((row) => typeof row._id === 'string').map((row) => ({ url: row._id, clicks: row.clicks, uniqueClicks: row.uniqueClicks }));
  return {
    metrics,
    timeline: bucketTimeline(hours, launchHour),
    topLinks: addLinks(stored, rolled.links).slice(0, TOP_LINKS),
    bounces: bounces.map((e) => ({ email: e.email, time: e.timestamp, type: e.bounce_type ?? 'unknown', reason: e.message ?? null })),
    unsubscribes: unsubscribes.map((e) => ({ email: e.email, time: e.timestamp, reason: e.reason ?? null })),
  };
}
