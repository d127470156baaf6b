// A worker that stops ends an endpoint's running delivery pass as when the pass's time is up: the
// pass completes (its cursor saved) instead of polling on through the worker's grace period and
// being cancelled after it, and the next worker on the queue goes on from that cursor: every
// event reaches the endpoint once.
import { Connection, Client } from '@temporalio/client';
import { workflowIds } from '../../adapters/temporal/contracts';
import { createAccount } from '../../core/accounts/accounts';
import { newId } from '../../core/shared/ids';
import { callHerald } from '../support/http';
import { startStack, type RunningStack, type StackOptions } from '../support/own-stack';
import { storeSyntheticEvents } from '../support/webhook-events';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const database = `herald_test_${newId().slice(0, 10)}`;
const options: StackOptions = { webhookTuning: { settleMs: 1000, idlePollMs: 200 } };
let receiver: WebhookReceiver;
let connection: Connection;
const stacks: RunningStack[] = [];

beforeAll(async () => {
  [receiver, connection] = await Promise.all([startWebhookReceiver(), Connection.connect({ address: process.env.TEMPORAL_ADDRESS })]);
});
afterAll(async () => {
  // The first stack's Herald is closed by the test already: its stop() then ends its sink and schedules;
  // each stop drops the database the two share.
  for (const stack of stacks.reverse()) await stack.stop().catch(() => undefined);
  await connection?.close();
  await receiver?.close();
});

const trackIdsReceived = () => receiver.events().map((e) => e.track_id as string);

it('ends a running pass at once when its worker stops, and the next worker delivers from its cursor, each event once', async () => {
  const first = await startStack(database, options);
  stacks.push(first);
  const acme = await createAccount(first.store, `acct${newId().slice(0, 8)}`);
  const created = await callHerald(first.baseUrl, 'POST', `/v2/${acme.account}/webhooks`, {
    headers: { authorization: `Bearer ${acme.apiKey}` }, json: { url: receiver.url },
  });
  expect(created.status).toBe(201);
  const before = await storeSyntheticEvents(first.store, acme.account, 3);
  await receiver.waitFor('the first events', () => before.every((id) => trackIdsReceived().includes(id)));

  // The pass now polls for new events (for up to a minute); the worker stops beneath it.
  await first.herald.close();
  const workflow = new Client({ connection }).workflow.getHandle(workflowIds.webhookDelivery(acme.account, created.body.data.id));
  const { raw } = await workflow.describe();
  expect(raw.pendingActivities ?? []).toEqual([]); // not cancelled after the grace period, to be tried again
  const events = (await workflow.fetchHistory()).events ?? [];
  const passes = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverWebhookEvents').length;
  expect(passes).toBeGreaterThan(0);
  expect(events.filter((e) => e.activityTaskCompletedEventAttributes)).toHaveLength(passes);
  expect(events.filter((e) => e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes ?? e.activityTaskCanceledEventAttributes)).toEqual([]);

  // The next worker on the queue goes on from the saved cursor: new events arrive, the first ones not again.
  const next = await startStack(database, options);
  stacks.push(next);
  const meanwhile = await storeSyntheticEvents(next.store, acme.account, 2);
  await receiver.waitFor('the events stored meanwhile', () => meanwhile.every((id) => trackIdsReceived().includes(id)));
  expect([...trackIdsReceived()].sort()).toEqual([...before, ...meanwhile].sort());
});
