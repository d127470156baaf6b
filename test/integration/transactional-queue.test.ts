// Single sends through the account's send queue: accepted requests are stored and queued, the
// API rings the account's AccountSender only when no drain runs (the doorbell), one drain sends a
// burst, every ledger row names the run that sent it, the queue ends empty, a request arriving
// after the drain went idle rings it again, the sweeper rings a queue nobody attends, and an
// answer waits while the account's sender is far behind (pacing).
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { ObjectId } from 'mongodb';
import type { NewAccount } from '../../core/accounts/accounts';
import { triggerSweeper } from '../../adapters/temporal/schedules';
import { workflowIds } from '../../adapters/temporal/contracts';
import { createRelayTransport } from '../../adapters/relay/transport';
import { createQueueDrain, DRAIN_TUNING } from '../../core/transactional/drain';
import { paced } from '../../core/transactional/pacing';
import { toStoredFields } from '../../core/transactional/request';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { ledgerRows } from '../support/ledger';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
let account: NewAccount;

beforeAll(async () => {
  // A drain stops once its queue stayed empty 300 ms: the test sees it go idle and be rung again.
  herald = await startTestHerald({ drainTuning: { idleMs: 300 } });
  account = await herald.newAccount();
});
afterAll(() => herald?.stop());

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const send = (to: string, i: number) => callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
  headers: { authorization: `Bearer ${account.transactionalKey}` },
  json: { from: { email: 'shop@example.com' }, subject: `Order ${i}`, content: { text: `Order ${i} shipped` }, recipients: [{ to: { email: to } }] },
});

/**
 * The account's sender runs (as listed, and the ids of those and the newest), over all of them the
 * rings it got, the drains it started and those still running, and whether its newest run has no
 * activity nor workflow task pending (it waits for a ring).
 */
async function senderHistory() {
  const { temporal } = herald.services;
  const workflowId = workflowIds.accountSender(account.account);
  const runs: WorkflowExecutionInfo[] = [];
  for await (const info of temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(info);
  // The newest run from the server itself: visibility (the list) may not show a run just started yet.
  const { runId: newest, raw } = await temporal.workflow.getHandle(workflowId).describe();
  const nothingPending = (raw.pendingActivities?.length ?? 0) === 0 && !raw.pendingWorkflowTask;
  const runIds = new Set([...runs.map((run) => run.runId), newest]);
  let rings = 0;
  let drains = 0;
  let ended = 0;
  for (const runId of runIds) {
    const events = (await temporal.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    rings += events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'ring').length;
    drains += events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'drainSendQueue').length;
    ended += events.filter((e) => e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes).length;
  }
  return { runs, runIds, rings, drains, draining: drains - ended, nothingPending };
}

it('sends a burst of 80 single sends with far fewer rings and drains than requests, each ledger row naming its run', async () => {
  const REQUESTS = 80;
  const before = herald.sink.received.length;
  const answers = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => send(`g${i}@example.net`, i)));
  expect(answers.map((a) => a.status)).toEqual(Array(REQUESTS).fill(202));
  expect(new Set(answers.map((a) => a.headers.get('herald-batch-id'))).size).toBe(REQUESTS);

  const mails = (await herald.sink.waitFor(before + REQUESTS, 60000)).slice(before);
  expect(mails.map((m) => m.rcptTo[0]).sort()).toEqual(Array.from({ length: REQUESTS }, (_, i) => `g${i}@example.net`).sort());

  const { store } = herald.services;
  await eventually('the queue emptied', async () => ((await store.sendQueue.countDocuments({ account: account.account })) === 0 ? true : undefined));
  const { runs, runIds, rings, drains } = await senderHistory();
  expect(runs.every((run) => run.type === 'AccountSender')).toBe(true);
  expect(rings).toBeLessThan(REQUESTS); // requests that found a drain at work rang no one
  expect(drains).toBeGreaterThan(0);
  expect(drains).toBeLessThan(REQUESTS);

  // Each message's ledger row names the run that sent it: an operator's way from a batch to its run.
  const rows = await ledgerRows(store, { account: account.account });
  expect(rows).toHaveLength(REQUESTS);
  for (const row of rows) {
    expect(row.sentBy?.workflowId).toBe(workflowIds.accountSender(account.account));
    expect(runIds.has(row.sentBy!.runId)).toBe(true);
  }
}, 120000);

it('rings the sender again for a request that arrives after its drain went idle', async () => {
  const { store } = herald.services;
  /**
   * The drains so far once the sender waits for a ring: its mark cleared, and no drain nor workflow
   * task pending. A ring that came while the last drain ran starts another at once (the CI run that
   * took the gap between the two for idle saw the next request go to that drain, unrung).
   */
  const idleDrains = async () => {
    const sender = await store.senders.findOne({ _id: account.account });
    if (!sender || sender.drainingUntil.getTime() !== 0) return undefined;
    const { drains, draining, nothingPending } = await senderHistory();
    return draining === 0 && nothingPending ? drains : undefined;
  };
  const before = herald.sink.received.length;
  expect((await send('first@example.net', 1)).status).toBe(202);
  await herald.sink.waitFor(before + 1, 30000);
  const drains = await eventually('the drain to stop, idle', idleDrains);

  expect((await send('second@example.net', 2)).status).toBe(202);
  const [mail] = (await herald.sink.waitFor(before + 2, 30000)).slice(before + 1);
  expect(mail.rcptTo).toEqual(['second@example.net']);
  await eventually('a new drain', async () => ((await senderHistory()).drains > drains ? true : undefined));
}, 60000);

it('tells Temporal it is alive while the store is slow to take its mark', async () => {
  // The soak's stalled drains: a long read held the store's writes, the mark's renewal waited,
  // and with it the heartbeat, until Temporal took the worker for dead, ten attempts in a row.
  // Here the renewals after the first are held back (the real store, its senders collection's
  // writes delayed) while the drain goes on beating.
  const { store } = herald.services;
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  let marks = 0;
  const senders = new Proxy(store.senders, {
    get(target, key) {
      if (key !== 'updateOne') return Reflect.get(target, key, target) as unknown;
      return async (...args: Parameters<typeof target.updateOne>) => {
        marks += 1;
        if (marks > 1) await held;
        return target.updateOne(...args);
      };
    },
  });
  const transport = createRelayTransport(herald.sink.url);
  const drain = createQueueDrain(
    { store: { ...store, senders }, transport, mtaHost: 'herald.test', publicUrl: herald.baseUrl, bounceDomain: 'bounces.herald.test' },
    { ...DRAIN_TUNING, idleMs: 60_000, heartbeatMs: 20 },
  );
  let beats = 0;
  const aborted = new AbortController();
  const running = drain(`slow${Date.now()}`, { heartbeat: () => { beats += 1; }, signal: aborted.signal });
  await waitUntil('a renewal of the mark held', () => marks > 1);
  const beatsWhenHeld = beats;
  await waitUntil('five beats more while the renewal waits', () => beats >= beatsWhenHeld + 5);
  expect(marks).toBe(2); // one renewal at a time: the held one is still the last
  release();
  aborted.abort(new Error('test over'));
  await running.catch(() => undefined);
  await transport.close();
}, 60000);

it('leaves no mark when a drain stops, even with its heartbeats racing the stop', async () => {
  // A renewal of the mark landing after the drain cleared it would keep the API from ringing
  // while nobody drains (a request then waited for the sweeper). Beats every millisecond make
  // that race likely on every stop.
  const { store } = herald.services;
  const transport = createRelayTransport(herald.sink.url);
  const drain = createQueueDrain(
    { store, transport, mtaHost: 'herald.test', publicUrl: herald.baseUrl, bounceDomain: 'bounces.herald.test' },
    { ...DRAIN_TUNING, idleMs: 20, heartbeatMs: 1 },
  );
  const quiet = `quiet${Date.now()}`;
  for (let round = 0; round < 20; round += 1) {
    const result = await drain(quiet, { heartbeat: () => undefined });
    expect(result).toMatchObject({ sent: 0, failed: 0, left: 0 });
    const sender = await store.senders.findOne({ _id: quiet });
    expect(sender?.drainingUntil.getTime()).toBe(0);
  }
  await transport.close();
}, 60000);

it('sends a request whose API died before ringing, once the sweeper finds its queue unattended', async () => {
  // What an API process that died between queueing a request and ringing leaves: the stored
  // request and its entry, accepted over a minute ago, and no drain running.
  const { store, temporal, taskQueue } = herald.services;
  await eventually('the drain to stop, idle', async () => {
    const sender = await store.senders.findOne({ _id: account.account });
    return sender && sender.drainingUntil.getTime() === 0 ? true : undefined;
  });
  const requestId = `orphan${Date.now()}`;
  const batchId = `${account.account}_transactional_${requestId}`;
  const body = { from: { email: 'shop@example.com' }, subject: 'Left behind', content: { text: 'Still sent' }, recipients: [{ to: { email: 'orphan@example.net' } }] };
  await store.sendRequests.insertOne({ _id: requestId, ...toStoredFields({ account: account.account, source: 'http', body }), batchId, acceptedAt: new Date(Date.now() - 120_000) });
  await store.sendQueue.insertOne({ _id: ObjectId.createFromTime(Math.floor(Date.now() / 1000) - 120), account: account.account, requestId, batchId });

  const before = herald.sink.received.length;
  await triggerSweeper(temporal, workflowIds.sendQueueSweeper(taskQueue));
  const [mail] = (await herald.sink.waitFor(before + 1, 30000)).slice(before);
  expect(mail.rcptTo).toEqual(['orphan@example.net']);
  await eventually('the queue emptied', async () => ((await store.sendQueue.countDocuments({ account: account.account })) === 0 ? true : undefined));
}, 60000);

it('holds an answer while more requests wait for the sender than the pacing allows, and for its longest wait at most', async () => {
  // 150 entries no sender has taken, of an account whose sender is not running.
  const { store } = herald.services;
  const slow = `paced${Date.now()}`;
  const entries = Array.from({ length: 150 }, (_, i) => ({ _id: new ObjectId(), account: slow, requestId: `r${i}`, batchId: `b${i}` }));
  await store.sendQueue.insertMany(entries);
  let answered = false;
  const answer = paced(store, slow, { aheadLimit: 100, maxWaitMs: 120_000, recheckMs: 10 }).then(() => { answered = true; });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(answered).toBe(false);
  // The sender takes 60 of them: 90 left, within the limit.
  await store.sendQueue.updateMany({ _id: { $in: entries.slice(0, 60).map((e) => e._id) } }, { $set: { taken: true } });
  await answer;
  expect(answered).toBe(true);

  // Behind again, and the sender does not come: the answer goes once its longest wait passed.
  await store.sendQueue.updateMany({ account: slow }, { $unset: { taken: '' } });
  await paced(store, slow, { aheadLimit: 100, maxWaitMs: 50, recheckMs: 10 });
  await store.sendQueue.deleteMany({ account: slow });
}, 60000);
