// Retention's pruning (core/retention/) on history written as if sent days ago, run with the
// clock it is given (small pages, no pause): an account's messages sent before its retention go
// whole (every event and the ledger row) with their requests, younger ones stay; another account
// with a longer retention keeps the same age of history; the daily stats, a campaign's metrics and
// report, and an automation's figures read the same before and after; a message still needed
// (its request queued, its campaign sending, an event waiting for a webhook) and a request still
// scheduled stay; a page left unfinished by a stopped pruner is finished and counted once.
import type { NewAccount } from '../../core/accounts/accounts';
import { automationMessageStats } from '../../core/automations/run-list';
import { campaignBatchId, campaignMailId } from '../../core/campaigns/model';
import { hold, recordPending } from '../../core/retention/hold';
import { pruneAllAccounts, type PruneRunResult } from '../../core/retention/run';
import { addRollups, rollupsOf } from '../../core/retention/rollup-writer';
import { setAccountRetention } from '../../core/retention/setting';
import type { AutomationDoc, CampaignDoc, EventDoc, Store } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { DAY, eventCounts, eventOf, idAt, outcomeOf, requestIdOf, requestOf, storeHistory, transactionalMessage, type Message } from '../support/history';

let herald: TestHerald;
let store: Store;
const NOW = Date.now();
const OLD = NOW - 20 * DAY;
const YOUNG = NOW - 2 * DAY;

const prune = (now = NOW): Promise<PruneRunResult> => pruneAllAccounts(store, {
  holder: 'test', now: new Date(now), tuning: { pageSize: 2, pauseMs: 0 }, controls: { progress: () => undefined, stopped: () => false }, done: () => undefined,
});
const get = (account: NewAccount, path: string) => callHerald(herald.baseUrl, 'GET', `/v2/${account.account}${path}`, { headers: { authorization: `Bearer ${account.apiKey}` } });
const transactional = transactionalMessage;
const requestIds = async (account: NewAccount) => (await store.sendRequests.find({ account: account.account }).project({ _id: 1 }).toArray()).map((r) => r._id).sort();

async function insertCampaign(account: string, id: number, state: CampaignDoc['state']): Promise<void> {
  await store.campaigns.insertOne({
    _id: `${account}:${id}`, account, id, name: `C${id}`, description: '', tags: [], type: 'SIMPLE', state, launchMode: 'NOW',
    launchDate: null, created: new Date(OLD), lastModified: new Date(OLD), archived: null, thumbnail: null, options: {},
    include: { lists: [], interests: [], campaigns: [] }, exclude: { lists: [], interests: [], campaigns: [] }, content: null,
    recipients: 4, launch: { taskId: id, workflowId: `campaign-${account}-${id}-${id}`, paused: false, snapshotTotal: 4 },
  });
}
const campaignMessage = (account: string, campaignId: number, seq: number, sentAt: number): Message => ({
  account, batchId: campaignBatchId(account, campaignId), mailId: campaignMailId(account, campaignId, seq), email: `c${seq}@example.net`,
  sentAt, requestId: `campaign-${campaignId}`, mailType: 'campaign',
});

/** What the reports say of the account: its daily stats over the last 30 days, the campaign's metrics and report, the automation's figures. */
async function reports(account: NewAccount, campaignId: number, automation: AutomationDoc) {
  const [stats, metrics, report] = await Promise.all([
    get(account, `/stats/daily?from=${new Date(NOW - 29 * DAY).toISOString().slice(0, 10)}`),
    get(account, `/campaigns/${campaignId}/metrics`),
    get(account, `/campaigns/${campaignId}/report`),
  ]);
  const { bounces, unsubscribes, ...kept } = report.body.data;
  return { stats: stats.body.data, metrics: metrics.body.data, report: kept, lists: { bounces, unsubscribes }, automation: await automationMessageStats(store, automation) };
}

beforeAll(async () => {
  // Without a worker: a pruning run goes over every account of the database, and the history
  // written here (a queued request among it) must stay as written until the test prunes it.
  herald = await startTestHerald({ worker: false });
  store = herald.services.store;
}, 60_000);
afterAll(() => herald?.stop());

describe('pruning an account\'s history', () => {
  let acme: NewAccount;
  let patient: NewAccount;
  const automation = (account: string) => ({ account, id: 3 }) as AutomationDoc;
  let old: Message[];
  let young: Message[];

  beforeAll(async () => {
    [acme, patient] = await Promise.all([herald.newAccount(), herald.newAccount()]);
    await setAccountRetention(store, acme.account, 10);
    await setAccountRetention(store, patient.account, 100);
    for (const account of [acme.account, patient.account]) {
      const [m1, m2, m3] = [1, 2, 3].map((n) => transactional(account, 'r1', n, OLD));
      const [c0, c1, c2] = [0, 1, 2].map((seq) => campaignMessage(account, 5, seq, OLD + seq * 60_000));
      const a0: Message = { account, batchId: `${account}_automation_3`, mailId: `${account}_auto_0`, email: 'a@example.net', sentAt: OLD, requestId: 'automation-3', mailType: 'automation' };
      const y = transactional(account, 'r2', 1, YOUNG);
      await insertCampaign(account, 5, 'SENT');
      await storeHistory(store, [
        // m1 opened and clicked; m2 refused at sending, then a report; m3 a complaint the next day.
        outcomeOf(m1), eventOf(m1, 'track.mail.first_opened', OLD + 3_600_000), eventOf(m1, 'track.mail.opened', OLD + 3_600_000),
        eventOf(m1, 'track.mail.first_clicked', OLD + 3_700_000, { url: 'https://shop.example/a' }), eventOf(m1, 'track.mail.clicked', OLD + 3_700_000, { url: 'https://shop.example/a' }),
        outcomeOf(m2, 'track.mail.bounced', { bounce_type: 'hard', message: '550 no' }), eventOf(m2, 'track.mail.bounced', OLD + 600_000, { bounce_type: 'hard', message: '550 report' }),
        outcomeOf(m3), eventOf(m3, 'track.mail.unsubscribed', OLD + DAY, { reason: 'spam_fbl' }),
        // The campaign: c0 opened and clicked twice (one link), c1 bounced by two reports, c2 unsubscribed.
        outcomeOf(c0), eventOf(c0, 'track.mail.first_opened', OLD + 7_200_000), eventOf(c0, 'track.mail.opened', OLD + 7_200_000),
        eventOf(c0, 'track.mail.first_clicked', OLD + 7_300_000, { url: 'https://shop.example/sale' }),
        eventOf(c0, 'track.mail.clicked', OLD + 7_300_000, { url: 'https://shop.example/sale' }), eventOf(c0, 'track.mail.clicked', OLD + 9 * DAY, { url: 'https://shop.example/sale' }),
        outcomeOf(c1), eventOf(c1, 'track.mail.bounced', OLD + DAY, { bounce_type: 'soft' }), eventOf(c1, 'track.mail.bounced', OLD + 2 * DAY, { bounce_type: 'hard' }),
        outcomeOf(c2), eventOf(c2, 'track.mail.unsubscribed', OLD + 3 * DAY, { reason: 'not_interested' }),
        outcomeOf(a0), eventOf(a0, 'track.mail.first_opened', OLD + DAY),
        // A young message: kept.
        outcomeOf(y), eventOf(y, 'track.mail.opened', YOUNG + 60_000),
      ], [requestOf(account, 'r1', OLD - 60_000, ['r1@example.net', 'r2@example.net', 'r3@example.net']), requestOf(account, 'r2', YOUNG - 60_000, ['r1@example.net'])]);
      if (account === acme.account) [old, young] = [[m1, m2, m3, c0, c1, c2, a0], [y]];
    }
  });

  it('removes whole messages sent before the account\'s retention, and their requests; keeps younger ones; reports read the same', async () => {
    const before = await reports(acme, 5, automation(acme.account));
    expect(before.metrics).toMatchObject({ sent: 3, opened: 1, clicked: 1, bounced: 1 });
    expect(before.automation).toMatchObject({ sent: 1, opened: 1 });
    expect(before.stats.totals).toMatchObject({ sent: 8, delivered: 6, opened: 3, clicked: 2, bounced: 2, unsubscribed: 1, complained: 1 });
    expect(before.report.topLinks).toEqual([{ url: 'https://shop.example/sale', clicks: 2, uniqueClicks: 1 }]);
    expect(before.report.timeline.length).toBeGreaterThan(72);
    const beforeOther = await reports(patient, 5, automation(patient.account));

    const result = await prune();
    expect(result.events).toBe(22);
    expect(result.requests).toBe(1);

    const removed = await eventCounts(store, acme.account, old.map((m) => m.mailId));
    expect(Object.values(removed)).toEqual(old.map(() => 0));
    expect(await eventCounts(store, acme.account, young.map((m) => m.mailId))).toEqual({ [young[0].mailId]: 2 });
    expect(await requestIds(acme)).toEqual([requestIdOf(acme.account, 'r2')]);

    const after = await reports(acme, 5, automation(acme.account));
    expect(after.stats).toEqual(before.stats);
    expect(after.metrics).toEqual(before.metrics);
    expect(after.report).toEqual(before.report);
    expect(after.automation).toEqual(before.automation);
    // The report's lists of recipients are the stored messages' only.
    expect(before.lists.bounces).toHaveLength(2);
    expect(after.lists).toEqual({ bounces: [], unsubscribes: [] });
    // The activity lists what is left.
    const activity = await get(acme, '/activity');
    expect(activity.body.data.map((event: EventDoc) => event.mail_id).sort()).toEqual([young[0].mailId, young[0].mailId]);

    // The account with 100 days keeps every message, and its reports are its own.
    expect(await store.events.countDocuments({ account: patient.account })).toBe(24);
    expect(await store.sendRequests.countDocuments({ account: patient.account })).toBe(2);
    expect(await reports(patient, 5, automation(patient.account))).toEqual(beforeOther);

    // Pruning again removes nothing and counts nothing twice.
    expect((await prune()).events).toBe(0);
    expect(await reports(acme, 5, automation(acme.account))).toEqual(after);
    // A hit recorded for a pruned message (a process still had its ledger row cached) goes uncounted.
    await storeHistory(store, [eventOf(old[0], 'track.mail.first_opened', NOW - 60_000), eventOf(old[3], 'track.mail.opened', NOW - 60_000)]);
    expect((await prune()).events).toBe(2);
    expect(await reports(acme, 5, automation(acme.account))).toEqual(after);
  });

  it('takes a longer history away once the clock passes it', async () => {
    const result = await prune(NOW + 200 * DAY);
    expect(await store.events.countDocuments({ account: patient.account })).toBe(0);
    expect(result.requests).toBeGreaterThanOrEqual(2);
    const stats = await get(patient, `/stats/daily?from=${new Date(OLD).toISOString().slice(0, 10)}&to=${new Date(OLD + 3 * DAY).toISOString().slice(0, 10)}`);
    expect(stats.body.data.totals).toMatchObject({ sent: 3 + 3 + 1, bounced: 2, opened: 3, clicked: 2, complained: 1, unsubscribed: 1 });
  });
});

describe('what stays whatever its age', () => {
  let acme: NewAccount;

  beforeAll(async () => {
    acme = await herald.newAccount();
    await setAccountRetention(store, acme.account, 10);
  });

  it('keeps a queued request and its messages, a scheduled request, and the messages of a campaign being sent', async () => {
    const queued = transactional(acme.account, 'q1', 1, OLD);
    const sending = campaignMessage(acme.account, 8, 0, OLD);
    const done = transactional(acme.account, 'd1', 1, OLD);
    await insertCampaign(acme.account, 8, 'SENDING');
    await storeHistory(store, [outcomeOf(queued), outcomeOf(sending), eventOf(sending, 'track.mail.opened', OLD + DAY), outcomeOf(done)], [
      requestOf(acme.account, 'q1', OLD - 60_000, ['a@example.net', 'b@example.net']),
      requestOf(acme.account, 's1', OLD, ['c@example.net'], NOW + DAY),
      requestOf(acme.account, 'd1', OLD - 60_000, ['r1@example.net']),
    ]);
    await store.sendQueue.insertOne({ _id: idAt(OLD - 60_000), account: acme.account, requestId: queued.requestId, batchId: queued.batchId, taken: true });

    await prune();
    expect(await eventCounts(store, acme.account, [queued.mailId, sending.mailId, done.mailId]))
      .toEqual({ [queued.mailId]: 1, [sending.mailId]: 2, [done.mailId]: 0 });
    expect(await requestIds(acme)).toEqual([requestIdOf(acme.account, 'q1'), requestIdOf(acme.account, 's1')]);
  });

  it('keeps the messages with an event a webhook endpoint has yet to deliver, or waiting for its retry', async () => {
    const cursor = idAt(OLD + DAY);
    await store.webhooks.insertOne({
      _id: `${acme.account}:1`, account: acme.account, id: 1, url: 'https://hooks.example/h', events: null, enabled: true, secret: 's',
      cursor, created: new Date(OLD), lastModified: new Date(OLD),
    });
    const [delivered, late, retried] = [1, 2, 3].map((n) => transactional(acme.account, 'w1', n, OLD));
    const retriedOpen = eventOf(retried, 'track.mail.opened', OLD + 3_600_000);
    const lateOpen = eventOf(late, 'track.mail.opened', OLD + 2 * DAY);
    await storeHistory(store, [outcomeOf(delivered), outcomeOf(late), lateOpen, outcomeOf(retried), retriedOpen], [requestOf(acme.account, 'w1', OLD - 60_000, ['r1@example.net', 'r2@example.net', 'r3@example.net'])]);
    await store.webhookRetries.insertOne({
      _id: 'retry-1', account: acme.account, endpointId: 1, eventIds: [retriedOpen._id], dueAt: new Date(NOW + 60_000), leaseUntil: new Date(0),
    });

    await prune();
    expect(await eventCounts(store, acme.account, [delivered.mailId, late.mailId, retried.mailId]))
      .toEqual({ [delivered.mailId]: 0, [late.mailId]: 2, [retried.mailId]: 2 });
    // Its request stays while messages of it do.
    expect(await requestIds(acme)).toContain(requestIdOf(acme.account, 'w1'));
    // Once delivered (the cursor past them, the retry done), they go.
    await store.webhooks.updateOne({ _id: `${acme.account}:1` }, { $set: { cursor: idAt(NOW) } });
    await store.webhookRetries.deleteOne({ _id: 'retry-1' });
    await prune();
    expect(await eventCounts(store, acme.account, [late.mailId, retried.mailId])).toEqual({ [late.mailId]: 0, [retried.mailId]: 0 });
    expect(await requestIds(acme)).not.toContain(requestIdOf(acme.account, 'w1'));
  });
});

describe('a pruner stopped midway', () => {
  it('leaves its page to the next, which removes it and counts it once', async () => {
    const acme = await herald.newAccount();
    await setAccountRetention(store, acme.account, 10);
    const message = transactional(acme.account, 'p1', 1, OLD);
    const events = [outcomeOf(message), eventOf(message, 'track.mail.first_opened', OLD + 60_000)];
    await storeHistory(store, events);
    const range = `?from=${new Date(OLD).toISOString().slice(0, 10)}&to=${new Date(OLD).toISOString().slice(0, 10)}`;
    const before = (await get(acme, `/stats/daily${range}`)).body.data;
    expect(before.totals).toMatchObject({ sent: 1, opened: 1 });

    // It recorded its page and added its counts, then stopped before removing the events; its hold ran out.
    expect(await hold(store, acme.account, 'gone')).toBe(true);
    const pending = { page: 'page-1', ids: events.map((e) => e._id), rollups: rollupsOf(acme.account, events) };
    await recordPending(store, acme.account, 'gone', pending);
    await addRollups(store, acme.account, pending.page, pending.rollups);
    await store.retention.updateOne({ _id: acme.account }, { $set: { heldUntil: new Date(NOW - 1000) } });

    await prune();
    expect(await store.events.countDocuments({ account: acme.account })).toBe(0);
    expect((await store.retention.findOne({ _id: acme.account }))?.pending).toBeUndefined();
    expect((await get(acme, `/stats/daily${range}`)).body.data).toEqual(before);
  });

  it('skips an account another pruner holds', async () => {
    const acme = await herald.newAccount();
    await setAccountRetention(store, acme.account, 10);
    const message = transactional(acme.account, 'h1', 1, OLD);
    await storeHistory(store, [outcomeOf(message)]);
    expect(await hold(store, acme.account, 'another')).toBe(true);
    const result = await prune();
    expect(result.held).toBeGreaterThanOrEqual(1);
    expect(await store.events.countDocuments({ account: acme.account })).toBe(1);
  });
});
