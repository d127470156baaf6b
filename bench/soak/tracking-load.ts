// Tracking hits on mail already delivered: for each message the sink kept, its open pixel once
// and its first link once; one campaign message in ten is unsubscribed by RFC 8058 one-click.
// A message is opened 10 s after it arrived at the earliest (a person reads it later than that).
// Its send may not be recorded yet (a worker killed after the relay's 250): Herald answers the
// hit all the same and records it once the send is (core/tracking/held-hits.ts).
// What got a clear answer is expected in Herald's events exactly once; a hit that got no answer
// (a process down) may or may not have counted, so its address is left out of that check.
import { callRecorded } from './answers';
import { TRACKED_CONTACT_PREFIX } from './campaign-load';
import type { SoakContext } from './context';
import type { SoakSink } from './mail-sink';

export interface TrackingRecord {
  /** Opens answered 200, per address. */
  opens: Map<string, number>;
  clicks: Map<string, number>;
  /** Addresses one of whose hits got no clear answer. */
  uncertain: Set<string>;
  /** Addresses unsubscribed by a one-click answered 200. */
  unsubscribed: Set<string>;
  hits: number;
}

const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
const PIXEL = /https?:\/\/[^"'\s)]+\/t\/o\/[A-Za-z0-9_.~-]+/;
const CLICK = /https?:\/\/[^"'\s>]+\/t\/c\/[A-Za-z0-9_.~-]+/;

export function newTrackingRecord(): TrackingRecord {
  return { opens: new Map(), clicks: new Map(), uncertain: new Set(), unsubscribed: new Set(), hits: 0 };
}

export async function trackingHits(ctx: SoakContext, sink: SoakSink, record: TrackingRecord, random: () => number): Promise<void> {
  while (ctx.running()) {
    for (const message of sink.takeKept(10_000)) {
      if (!ctx.running()) break;
      const pixel = PIXEL.exec(message.html)?.[0];
      const click = CLICK.exec(message.html)?.[0];
      if (pixel) {
        record.hits += 1;
        const answer = await callRecorded(ctx.answers, 'tracking_open', pixel);
        if (answer?.status === 200) bump(record.opens, message.to); else record.uncertain.add(message.to);
      }
      if (click) {
        record.hits += 1;
        const answer = await callRecorded(ctx.answers, 'tracking_click', click, { redirect: 'manual' });
        if (answer?.status === 302) bump(record.clicks, message.to); else record.uncertain.add(message.to);
      }
      if (message.to.startsWith(TRACKED_CONTACT_PREFIX) && message.listUnsubscribe && random() < 0.1) {
        record.hits += 1;
        const answer = await callRecorded(ctx.answers, 'tracking_unsubscribe', message.listUnsubscribe, { raw: { type: 'application/x-www-form-urlencoded', body: 'List-Unsubscribe=One-Click' } });
        if (answer?.status === 200) record.unsubscribed.add(message.to); else record.uncertain.add(message.to);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}
