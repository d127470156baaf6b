// The TransactionalBatch workflow's control flow on the time-skipping test server: half an
// hour of retry backoff passes in a moment. Activities here are stand-ins that fail on
// purpose; the real ones are covered end to end in test/integration.
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { temporalTestServerPath } from '../../infra/python-tools';
import type { TransactionalBatchInput } from '../../core/workflow-contracts';
import { quietTemporalRuntime } from '../../worker';

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  quietTemporalRuntime(); // the failures below are on purpose: keep their logs out
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: await temporalTestServerPath() } },
  });
}, 120000);
afterAll(() => env?.teardown());

async function run(sendAcceptedRequest: (input: TransactionalBatchInput) => Promise<{ sent: number; failed: number }>) {
  const recorded: Array<TransactionalBatchInput & { reason: string }> = [];
  const attempts: number[] = [];
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'tx-test',
    workflowsPath: require.resolve('../../workflows'),
    activities: {
      sendAcceptedRequest: async (input: TransactionalBatchInput) => {
        attempts.push(Date.now());
        return sendAcceptedRequest(input);
      },
      recordUnsentAsFailed: async (input: TransactionalBatchInput & { reason: string }) => {
        recorded.push(input);
        return { sent: 0, failed: 1 };
      },
    },
  });
  const result = await worker.runUntil(env.client.workflow.execute('TransactionalBatch', {
    taskQueue: 'tx-test', workflowId: `tx-acme-${Math.random().toString(36).slice(2)}`, args: [{ account: 'acme', requestId: 'r1' }],
  }));
  return { result, recorded, attempts };
}

it('retries a failing relay with backoff, then records the unsent messages as failed', async () => {
  const { result, recorded, attempts } = await run(async () => { throw new Error('connect ECONNREFUSED'); });
  expect(attempts).toHaveLength(10);
  expect(recorded).toEqual([{ account: 'acme', requestId: 'r1', reason: 'connect ECONNREFUSED' }]);
  expect(result).toEqual({ sent: 0, failed: 1 });
}, 60000);

it('ends quietly when the request was never accepted (start timed out, client told to retry)', async () => {
  const { result, recorded, attempts } = await run(async () => {
    throw ApplicationFailure.nonRetryable('send request r1 not found', 'RequestNotFound');
  });
  expect(attempts).toHaveLength(1);
  expect(recorded).toEqual([]);
  expect(result).toEqual({ sent: 0, failed: 0 });
}, 60000);

it('returns what the send reported when it succeeds', async () => {
  const { result, recorded } = await run(async () => ({ sent: 3, failed: 1 }));
  expect(result).toEqual({ sent: 3, failed: 1 });
  expect(recorded).toEqual([]);
}, 60000);

/** A worker with stand-in activities that record when each ran (in the test server's skipped time). */
async function scheduledWorker(send: () => Promise<{ sent: number; failed: number }>) {
  const calls: Array<{ activity: string; at: number }> = [];
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'tx-scheduled',
    workflowsPath: require.resolve('../../workflows'),
    activities: {
      sendAcceptedRequest: async () => { calls.push({ activity: 'send', at: Date.now() }); return send(); },
      recordUnsentAsFailed: async () => ({ sent: 0, failed: 0 }),
      recordCancelled: async () => { calls.push({ activity: 'cancelled', at: Date.now() }); return { sent: 0, failed: 2 }; },
    },
  });
  return { worker, calls };
}

it('waits for a launch_date a month away in a durable timer, then sends', async () => {
  const { worker, calls } = await scheduledWorker(async () => ({ sent: 2, failed: 0 }));
  const startedAt = await env.currentTimeMs();
  const launchAt = new Date(startedAt + 30 * 24 * 3600_000).toISOString();
  const result = await worker.runUntil(env.client.workflow.execute('TransactionalBatch', {
    taskQueue: 'tx-scheduled', workflowId: `tx-acme-${Math.random().toString(36).slice(2)}`, args: [{ account: 'acme', requestId: 'r2', launchAt }],
  }));
  expect(result).toEqual({ sent: 2, failed: 0 });
  expect(calls.map((c) => c.activity)).toEqual(['send']);
  expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(Date.parse(launchAt)); // the month passed (skipped) before the send
}, 60000);

it('records the messages as dropped when cancelled before its launch_date, and sends nothing', async () => {
  const { worker, calls } = await scheduledWorker(async () => ({ sent: 2, failed: 0 }));
  const launchAt = new Date((await env.currentTimeMs()) + 7 * 24 * 3600_000).toISOString();
  const result = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('TransactionalBatch', {
      taskQueue: 'tx-scheduled', workflowId: `tx-acme-${Math.random().toString(36).slice(2)}`, args: [{ account: 'acme', requestId: 'r3', launchAt }],
    });
    await handle.cancel();
    return handle.result();
  });
  expect(result).toEqual({ sent: 0, failed: 2 });
  expect(calls.map((c) => c.activity)).toEqual(['cancelled']);
}, 60000);
