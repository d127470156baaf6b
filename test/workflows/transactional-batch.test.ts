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
