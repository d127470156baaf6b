// Retention's pruning of what goes with an account's message history (core/retention/prune-records.ts),
// with the clock it is given: a campaign's recipient snapshot once its launch ended before the
// account's retention (not while it runs, nor when it ended since); automation runs that ended
// before it (not a run still waiting); custom trigger events received before it whose runs all
// ended; Idempotency-Key claims past their 24 hours, whatever the retention.
import type { NewAccount } from '../../core/accounts/accounts';
import { snapshotPartId } from '../../core/campaigns/snapshot';
import { pruneAllAccounts } from '../../core/retention/run';
import { setAccountRetention } from '../../core/retention/setting';
import type { AutomationRunDoc, Store, TaskDoc, TaskState } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import { DAY } from '../support/history';

let herald: TestHerald;
let store: Store;
let acme: NewAccount;
const NOW = Date.now();
const OLD = NOW - 20 * DAY;
const YOUNG = NOW - 2 * DAY;

const prune = () => pruneAllAccounts(store, {
  holder: 'test', now: new Date(NOW), tuning: { pageSize: 2, pauseMs: 0 }, controls: { progress: () => undefined, stopped: () => false }, done: () => undefined,
});
const ids = async (collection: { find(filter: object): { project(p: object): { toArray(): Promise<Array<{ _id: unknown }>> } } }) =>
  (await collection.find({ account: acme.account }).project({ _id: 1 }).toArray()).map((doc) => String(doc._id)).sort();

function task(id: number, campaignId: number, state: TaskState, end: number | null): TaskDoc {
  return {
    _id: `${acme.account}:${id}`, account: acme.account, id, type: 'CAMPAIGN_LAUNCH', name: 'Launch', state, cancellable: false, message: '',
    owner: 'owner', ownerId: 1, created: new Date(OLD), init: new Date(OLD), end: end === null ? null : new Date(end), completed: end === null ? 0.5 : 1,
    eta: -1, request: `/campaigns/${campaignId}/launch`, parameters: { campaignId }, result: null, workflowId: `campaign-${acme.account}-${campaignId}-${id}`,
  };
}

function run(automationId: number, eventId: string, state: AutomationRunDoc['state'], ended: number | null): AutomationRunDoc {
  return {
    _id: `${acme.account}:${automationId}:${eventId}`, account: acme.account, automationId, eventId, email: 'a@example.net', activation: 1,
    steps: [], state, started: new Date(OLD), ended: ended === null ? null : new Date(ended),
  };
}

beforeAll(async () => {
  herald = await startTestHerald();
  store = herald.services.store;
  acme = await herald.newAccount();
  await setAccountRetention(store, acme.account, 10);
}, 60_000);
afterAll(() => herald?.stop());

it('removes the recipient snapshots of campaigns whose launches ended before the retention', async () => {
  // Campaign 6 was sent 20 days ago; 7 two days ago; 9 is still being sent, begun 20 days ago.
  const campaigns: Array<[number, 'SENT' | 'SENDING', TaskDoc]> = [[6, 'SENT', task(6, 6, 'FINISHED', OLD + 3_600_000)], [7, 'SENT', task(7, 7, 'FINISHED', YOUNG)], [9, 'SENDING', task(9, 9, 'PROCESSING', null)]];
  for (const [id, state, launch] of campaigns) {
    await store.campaigns.insertOne({
      _id: `${acme.account}:${id}`, account: acme.account, id, name: `C${id}`, description: '', tags: [], type: 'SIMPLE', state, launchMode: 'NOW',
      launchDate: null, created: new Date(OLD), lastModified: new Date(OLD), archived: null, thumbnail: null, options: {},
      include: { lists: [], interests: [], campaigns: [] }, exclude: { lists: [], interests: [], campaigns: [] }, content: null,
      recipients: 2, launch: { taskId: launch.id, workflowId: launch.workflowId, paused: false, snapshotTotal: 2 },
    });
    await store.tasks.insertOne(launch);
    await store.campaignSnapshots.insertMany([0, 1].map((part) => ({
      _id: snapshotPartId(acme.account, id, launch.id, part), account: acme.account, campaignId: id, taskId: launch.id, part,
      recipients: [{ seq: part, contactId: part + 1, email: `c${part}@example.net`, firstName: 'C', lastName: '', gender: '', language: '', customFields: {} }],
    })));
  }
  const result = await prune();
  expect(result.snapshots).toBe(2);
  expect(await ids(store.campaignSnapshots)).toEqual([7, 9].flatMap((id) => [0, 1].map((part) => snapshotPartId(acme.account, id, id, part))).sort());
  // The campaigns themselves stay, with their counts.
  expect(await store.campaigns.countDocuments({ account: acme.account })).toBe(3);
});

it('removes automation runs that ended before the retention, and trigger events whose runs all ended', async () => {
  await store.automationRuns.insertMany([
    run(1, 'e-done', 'completed', OLD + 60_000), run(2, 'e-done', 'exited', OLD + 120_000),
    run(1, 'e-waiting', 'running', null), run(1, 'e-recent', 'completed', YOUNG),
  ]);
  await store.triggerEvents.insertMany(['e-done', 'e-waiting', 'e-recent'].map((eventId) => ({
    _id: `${acme.account}:${eventId}`, account: acme.account, eventId, key: 'order', email: 'a@example.net', context: '{"order":1}',
    receivedAt: new Date(eventId === 'e-recent' ? YOUNG : OLD), matched: [1],
  })));
  const result = await prune();
  expect([result.runs, result.triggerEvents]).toEqual([2, 1]);
  expect(await ids(store.automationRuns)).toEqual([`${acme.account}:1:e-recent`, `${acme.account}:1:e-waiting`]);
  expect(await ids(store.triggerEvents)).toEqual([`${acme.account}:e-recent`, `${acme.account}:e-waiting`]);
});

it('removes Idempotency-Key claims past their 24 hours', async () => {
  await store.idempotencyKeys.insertMany([
    { _id: `${acme.account}:old`, account: acme.account, fingerprint: 'f', created: new Date(NOW - 2 * DAY), answer: { requestId: 'r', batchId: 'b' } },
    { _id: `${acme.account}:new`, account: acme.account, fingerprint: 'f', created: new Date(NOW - 3_600_000), answer: { requestId: 'r', batchId: 'b' } },
  ]);
  expect((await prune()).idempotencyKeys).toBe(1);
  expect(await ids(store.idempotencyKeys)).toEqual([`${acme.account}:new`]);
});
