// The console's report pages on real sizes, on the embedded store as `npm start` runs it (H2 file):
// the overview's GET /stats/daily for an account with 100,000 events over its 30 days, and a
// campaign report (GET …/report, and GET …/metrics alone) for a 100,000-recipient campaign with
// ~180,000 events (30% opened, a third of them twice; 8% clicked over 30 links; 2% bounced;
// 0.5% unsubscribed). Events go straight into the store; the API runs on its own thread.
import path from 'node:path';
import { createAccount } from '../core/accounts/accounts';
import { campaignBatchId, campaignMailId } from '../core/campaigns/model';
import { buildEvent, recordEvents, type EventSubject, type TrackType } from '../core/tracking/events';
import { connectStore, type CampaignDoc, type EventDoc } from '../adapters/store/store';
import { startEmbeddedStore } from '../infra/store';
import { startApiThread } from './api-thread';
import { percentile, round } from './stats';
import { log, Teardown } from './support';

const EVENTS = 100_000;
const RECIPIENTS = 100_000;
const REQUESTS = 10;
const DAY = 86_400_000;
const DATABASE = 'herald_bench_console_reports';

const summary = (times: number[]) => ({ p50_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)), max_ms: round(Math.max(...times)) });

/** 100,000 events of an account's transactional mail, spread over the last 30 days. */
async function seedDailyEvents(store: Awaited<ReturnType<typeof connectStore>>, account: string): Promise<void> {
  const types: TrackType[] = ['track.mail.sent', 'track.mail.sent', 'track.mail.opened', 'track.mail.first_opened', 'track.mail.clicked'];
  const now = Date.now();
  for (let from = 0; from < EVENTS; from += 10_000) {
    await recordEvents(store, Array.from({ length: 10_000 }, (_, i) => {
      const n = from + i;
      const at = now - (n % 30) * DAY - 1000;
      const subject: EventSubject = {
        account, batch_id: `${account}_transactional_bench`, mail_id: `bench${n}`, email: `r${n}@example.org`,
        sent_timestamp: new Date(at), tags: [], custom_args: {}, mta: 'herald.bench',
      };
      return buildEvent(types[n % types.length], subject, new Date(at), `bench${n}`);
    }));
  }
}

/** A SENT campaign of 100,000 recipients and its events, launched two weeks ago. */
async function seedCampaign(store: Awaited<ReturnType<typeof connectStore>>, account: string): Promise<CampaignDoc> {
  const id = 1;
  const campaign: CampaignDoc = {
    _id: `${account}:${id}`, account, id, name: 'Bench', description: '', tags: [], type: 'SIMPLE', state: 'SENT', launchMode: 'NOW',
    launchDate: null, created: new Date(), lastModified: new Date(), archived: null, thumbnail: null, options: {},
    include: { lists: [], interests: [], campaigns: [] }, exclude: { lists: [], interests: [], campaigns: [] }, content: null,
    recipients: RECIPIENTS, launch: { taskId: 1, workflowId: 'bench', paused: false, snapshotTotal: RECIPIENTS },
  };
  await store.campaigns.insertOne(campaign);
  const launch = Date.now() - 14 * DAY;
  const at = (hours: number, minutes = 0) => new Date(launch + hours * 3_600_000 + minutes * 60_000);
  const subject = (seq: number): EventSubject => ({
    account, batch_id: campaignBatchId(account, id), mail_id: campaignMailId(account, id, seq, 0),
    email: `c${seq}@example.net`, sent_timestamp: at(0), tags: [], custom_args: {}, mta: 'herald.bench', mail_type: 'campaign',
  });
  const event = (type: TrackType, seq: number, when: Date, extra: Record<string, unknown> = {}) =>
    buildEvent(type, subject(seq), when, `${type}-${seq}-${when.getTime()}`, extra);
  const links = Array.from({ length: 30 }, (_, i) => `https://shop.example.com/p/${i}`);
  for (let from = 0; from < RECIPIENTS; from += 10_000) {
    const events: EventDoc[] = [];
    for (let seq = from; seq < from + 10_000; seq += 1) {
      events.push(event('track.mail.sent', seq, at(0, seq % 120)));
      if (seq % 10 < 3) {
        const open = at((seq * 7) % 240, seq % 60);
        events.push(event('track.mail.first_opened', seq, open), event('track.mail.opened', seq, open));
        if (seq % 30 === 0) events.push(event('track.mail.opened', seq, at(((seq * 7) % 240) + 1)));
      }
      if (seq % 25 < 2) {
        const url = links[Math.floor(seq / 25) % links.length];
        events.push(event('track.mail.first_clicked', seq, at(seq % 200), { url }), event('track.mail.clicked', seq, at(seq % 200), { url }));
      }
      if (seq % 50 === 7) events.push(event('track.mail.bounced', seq, at(1), { bounce_type: seq % 100 === 7 ? 'hard' : 'soft', message: '550' }));
      if (seq % 200 === 3) events.push(event('track.mail.unsubscribed', seq, at(4), { reason: 'not_interested' }));
    }
    await store.events.insertMany(events, { ordered: false });
  }
  return campaign;
}

export async function runConsoleReports(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const dir = teardown.tempDir('herald-bench-reports-');
    log('console-reports: starting the embedded store (H2 file, durable commits)');
    const embedded = await startEmbeddedStore({ file: path.join(dir, 'store.mv.db'), logFile: path.join(dir, 'store.log') });
    teardown.defer('store', () => embedded.stop());
    const store = await connectStore(embedded.uri, DATABASE);
    teardown.defer('store client', () => store.close());
    const base = await startApiThread(embedded.uri, DATABASE, teardown);
    const daily = await createAccount(store, 'benchdaily');
    const reports = await createAccount(store, 'benchreport');
    log(`console-reports: ${EVENTS} events over 30 days, and a campaign of ${RECIPIENTS} recipients with its events`);
    await seedDailyEvents(store, daily.account);
    const campaign = await seedCampaign(store, reports.account);
    const events = await store.events.countDocuments({ account: reports.account });

    const time = async (account: { account: string; apiKey: string }, route: string, check: (data: Record<string, unknown>) => boolean) => {
      const times: number[] = [];
      for (let i = 0; i <= REQUESTS; i++) {
        const t0 = performance.now();
        const response = await fetch(`${base}/v2/${account.account}${route}`, { headers: { authorization: `Bearer ${account.apiKey}` } });
        const body = await response.json() as { data: Record<string, unknown> };
        if (!response.ok || !check(body.data)) throw new Error(`GET ${route}: HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
        if (i > 0) times.push(performance.now() - t0); // the first warms the store
      }
      return summary(times);
    };
    log('console-reports: the calls the overview and the report page make');
    const statsDaily = await time(daily, '/stats/daily', (d) => (d.totals as { sent: number }).sent === EVENTS * 0.4);
    const metrics = await time(reports, `/campaigns/${campaign.id}/metrics`, (d) => d.sent === RECIPIENTS);
    const report = await time(reports, `/campaigns/${campaign.id}/report`, (d) => (d.metrics as { sent: number }).sent === RECIPIENTS);
    return {
      scenario: 'console-reports',
      stats_daily_30_days: { events: EVENTS, ...statsDaily },
      campaign_metrics: { recipients: RECIPIENTS, events, ...metrics },
      campaign_report: { recipients: RECIPIENTS, events, ...report },
      notes: `H2 file (npm start's store); the API on its own thread; events inserted through the store. ${REQUESTS} sequential calls each after one warm-up: `
        + 'GET /stats/daily (the overview\'s default 30 days), GET /campaigns/{id}/metrics and GET /campaigns/{id}/report (what the report page polls).',
    };
  } finally {
    await teardown.run();
  }
}
