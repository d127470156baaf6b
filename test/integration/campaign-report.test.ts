// GET /v2/{account}/campaigns/{id}/report on stored events: the metrics as GET …/metrics has
// them, the timeline's buckets (hourly for 72 hours from the first send, daily after, first opens
// and clicks adding up to the metrics), top links with unique clicks, the latest bounces and
// unsubscribes; a draft's empty report. Its time on a 100,000-recipient campaign: bench/console-reports.ts.
import type { NewAccount } from '../../core/accounts/accounts';
import { campaignBatchId, campaignMailId } from '../../core/campaigns/model';
import { buildEvent, type EventSubject, type TrackType } from '../../core/tracking/events';
import type { CampaignDoc, EventDoc } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const call = (path: string) => callHerald(herald.baseUrl, 'GET', `/v2/${acme.account}${path}`, { headers: { authorization: `Bearer ${acme.apiKey}` } });

async function insertCampaign(id: number, state: CampaignDoc['state'], snapshotTotal?: number): Promise<CampaignDoc> {
  const campaign: CampaignDoc = {
    _id: `${acme.account}:${id}`, account: acme.account, id, name: `C${id}`, description: '', tags: [], type: 'SIMPLE', state, launchMode: 'NOW',
    launchDate: null, created: new Date(), lastModified: new Date(), archived: null, thumbnail: null, options: {},
    include: { lists: [], interests: [], campaigns: [] }, exclude: { lists: [], interests: [], campaigns: [] }, content: null,
    recipients: snapshotTotal ?? null, ...(snapshotTotal !== undefined ? { launch: { taskId: 1, workflowId: 'w', paused: false, snapshotTotal } } : {}),
  };
  await herald.services.store.campaigns.insertOne(campaign);
  return campaign;
}

const launch = Date.parse('2026-03-02T09:00:00.000Z');
const at = (hours: number, minutes = 0) => new Date(launch + hours * 3_600_000 + minutes * 60_000);

function eventsOf(campaign: CampaignDoc) {
  const subject = (seq: number): EventSubject => ({
    account: acme.account, batch_id: campaignBatchId(acme.account, campaign.id), mail_id: campaignMailId(acme.account, campaign.id, seq, 0),
    email: `r${seq}@example.net`, sent_timestamp: at(0), tags: [], custom_args: {}, mta: 'herald.test', mail_type: 'campaign',
  });
  return (type: TrackType, seq: number, when: Date, extra: Record<string, unknown> = {}) => buildEvent(type, subject(seq), when, `${type}-${seq}-${when.getTime()}`, extra);
}

describe('GET …/campaigns/{id}/report', () => {
  it('answers the metrics, the timeline, top links, bounces and unsubscribes', async () => {
    const campaign = await insertCampaign(7001, 'SENT', 5);
    const e = eventsOf(campaign);
    const sale = 'https://shop.example.com/sale';
    const news = 'https://shop.example.com/news';
    const events: EventDoc[] = [
      ...[0, 1, 2, 3].map((seq) => e('track.mail.sent', seq, at(0, seq))),
      e('track.mail.sent', 4, at(1, 5)),
      // r0 opens in the first hour, twice; r1 two hours later; r2 on day 5 (daily by then).
      e('track.mail.first_opened', 0, at(0, 30)), e('track.mail.opened', 0, at(0, 30)), e('track.mail.opened', 0, at(0, 40)),
      e('track.mail.first_opened', 1, at(2, 10)), e('track.mail.opened', 1, at(2, 10)),
      e('track.mail.first_opened', 2, at(100)), e('track.mail.opened', 2, at(100)),
      // Clicks: sale three times by r0 and once by r1, news once by r1.
      e('track.mail.first_clicked', 0, at(0, 31), { url: sale }), e('track.mail.clicked', 0, at(0, 31), { url: sale }),
      e('track.mail.clicked', 0, at(0, 32), { url: sale }), e('track.mail.clicked', 0, at(5), { url: sale }),
      e('track.mail.first_clicked', 1, at(2, 11), { url: news }), e('track.mail.clicked', 1, at(2, 11), { url: news }),
      e('track.mail.clicked', 1, at(2, 12), { url: sale }),
      e('track.mail.bounced', 3, at(0, 50), { bounce_type: 'hard', message: '550 no such user' }),
      e('track.mail.bounced', 4, at(2), { bounce_type: 'soft', message: '452 mailbox full' }),
      e('track.mail.unsubscribed', 1, at(3), { reason: 'not_interested' }),
    ];
    await herald.services.store.events.insertMany(events);

    const answer = await call(`/campaigns/${campaign.id}/report`);
    expect(answer.status).toBe(200);
    const report = answer.body.data;
    expect(report.metrics).toEqual((await call(`/campaigns/${campaign.id}/metrics`)).body.data);
    expect(report.metrics).toMatchObject({ sent: 5, opened: 3, clicked: 2, bounced: 2 });

    const timeline: Json[] = report.timeline;
    // 72 hourly buckets from the launch hour, then daily: the first from where the hours end to midnight, then from 00:00 to the last event's day.
    expect(timeline.slice(0, 72).map((b) => b.time)).toEqual(Array.from({ length: 72 }, (_, h) => at(h).toISOString()));
    expect(timeline.slice(72).map((b) => b.time)).toEqual([at(72).toISOString(), '2026-03-06T00:00:00.000Z']);
    expect(timeline[0]).toEqual({ time: at(0).toISOString(), sent: 4, opened: 1, clicked: 1, openedT: 2, clickedT: 2 });
    expect(timeline[1]).toMatchObject({ sent: 1, opened: 0 });
    expect(timeline[2]).toEqual({ time: at(2).toISOString(), sent: 0, opened: 1, clicked: 1, openedT: 1, clickedT: 2 });
    expect(timeline[5]).toMatchObject({ clickedT: 1, opened: 0 });
    expect(timeline[73]).toMatchObject({ time: '2026-03-06T00:00:00.000Z', opened: 1, openedT: 1 });
    const sum = (key: string) => timeline.reduce((total, b) => total + b[key], 0);
    expect([sum('sent'), sum('opened'), sum('clicked')]).toEqual([report.metrics.sent, report.metrics.opened, report.metrics.clicked]);

    expect(report.topLinks).toEqual([{ url: sale, clicks: 4, uniqueClicks: 2 }, { url: news, clicks: 1, uniqueClicks: 1 }]);
    expect(report.bounces).toEqual([
      { email: 'r4@example.net', time: at(2).toISOString(), type: 'soft', reason: '452 mailbox full' },
      { email: 'r3@example.net', time: at(0, 50).toISOString(), type: 'hard', reason: '550 no such user' },
    ]);
    expect(report.unsubscribes).toEqual([{ email: 'r1@example.net', time: at(3).toISOString(), reason: 'not_interested' }]);
  });

  it('answers a draft with zero metrics and empty lists, and 404 for another account\'s campaign', async () => {
    const draft = await insertCampaign(7002, 'DRAFT');
    const answer = await call(`/campaigns/${draft.id}/report`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ metrics: { sent: 0, opened: 0 }, timeline: [], topLinks: [], bounces: [], unsubscribes: [] });
    const stranger = await herald.newAccount();
    const theirs = await callHerald(herald.baseUrl, 'GET', `/v2/${stranger.account}/campaigns/${draft.id}/report`, { headers: { authorization: `Bearer ${stranger.apiKey}` } });
    expect(theirs.status).toBe(404);
  });
});
