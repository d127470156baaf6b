// The send workflows' control flow on the time-skipping test server: retry backoff, launch
// dates and idle periods pass in a moment. Activities here are stand-ins that record their calls
// (and fail on purpose); the real ones are covered end to end in test/integration.
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { temporalTestServerPath } from '../../infra/python-tools';
import { searchAttributeKeys, SEND_SIGNAL, type SendOutcome, type SendRequestsInput } from '../../adapters/temporal/contracts';
import { installTestTemporalRuntime } from '../support/temporal-logs';
import { testWorkflowCode } from '../support/workflow-bundle';

let env: TestWorkflowEnvironment;
/** temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST, without a dependency on @temporalio/proto. */
const INDEXED_VALUE_TYPE_KEYWORD_LIST = 7;

beforeAll(async () => {
  installTestTemporalRuntime(); // the failures below are on purpose: their logs show only if a test fails
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: await temporalTestServerPath() } },
  });
  // The AccountSender lists its batch ids in a search attribute, which must be registered.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: { [searchAttributeKeys.batches.name]: INDEXED_VALUE_TYPE_KEYWORD_LIST },
  });
}, 120000);
afterAll(() => env?.teardown());

interface Call { activity: string; at: number; input: SendRequestsInput & { reason?: string } }

/** A worker whose sendRequests answers with `send`; every activity call is recorded with its (skipped) time. */
async function standInWorker(send: (input: SendRequestsInput, calls: Call[]) => Promise<SendOutcome>) {
  const calls: Call[] = [];
  const taskQueue = `send-${Math.random().toString(36).slice(2)}`;
  // The test server's clock: timers and backoff skip ahead in it, not in Date.now().
  const record = (activity: string) => async (input: Call['input']) => {
    calls.push({ activity, at: await env.currentTimeMs(), input });
    return { sent: 0, failed: input.requests.length, deferred: [] };
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...testWorkflowCode(),
    activities: {
      sendRequests: async (input: SendRequestsInput) => {
        calls.push({ activity: 'send', at: await env.currentTimeMs(), input });
        return send(input, calls);
      },
      recordUnsentAsFailed: record('failed'),
      recordCancelled: record('cancelled'),
    },
  });
  return { worker, calls, taskQueue };
}

const one = (id: string) => ({ account: 'acme', requestId: id, batchId: `acme_transactional_${id}` });
const sentAll = async (input: SendRequestsInput) => ({ sent: input.requests.length, failed: 0, deferred: [] });

describe('ScheduledSend', () => {
  const run = async (send: Parameters<typeof standInWorker>[0], launchInMs = 0) => {
    const { worker, calls, taskQueue } = await standInWorker(send);
    const launchAt = new Date((await env.currentTimeMs()) + launchInMs).toISOString();
    await worker.runUntil(env.client.workflow.execute('ScheduledSend', {
      taskQueue, workflowId: `tx-acme-${Math.random().toString(36).slice(2)}`, args: [{ ...one('r1'), launchAt }],
    }));
    return calls;
  };

  it('retries a failing relay with backoff, then records the unsent messages as failed', async () => {
    const calls = await run(async () => { throw new Error('connect ECONNREFUSED'); });
    expect(calls.filter((c) => c.activity === 'send')).toHaveLength(10);
    expect(calls.at(-1)).toMatchObject({ activity: 'failed', input: { account: 'acme', requests: [{ requestId: 'r1' }], reason: 'connect ECONNREFUSED' } });
  }, 60000);

  it('does not retry what cannot succeed (a non-retryable failure), and records it as failed', async () => {
    const calls = await run(async () => { throw ApplicationFailure.nonRetryable('broken request', 'Broken'); });
    expect(calls.map((c) => c.activity)).toEqual(['send', 'failed']);
  }, 60000);

  it('waits for a launch_date a month away in a durable timer, then sends', async () => {
    const startedAt = await env.currentTimeMs();
    const calls = await run(sentAll, 30 * 24 * 3600_000);
    expect(calls.map((c) => c.activity)).toEqual(['send']);
    expect(calls[0].at).toBeGreaterThanOrEqual(startedAt + 30 * 24 * 3600_000); // the month passed (skipped) before the send
  }, 60000);

  it('sends a deferred request again after 1 s, then 2 s, until the relay takes it', async () => {
    const calls = await run(async (input, seen) => ({ sent: 0, failed: 0, deferred: seen.length < 3 ? [input.requests[0].requestId] : [] }));
    const sends = calls.filter((c) => c.activity === 'send').map((c) => c.at);
    expect(sends).toHaveLength(3);
    expect(sends[1] - sends[0]).toBeGreaterThanOrEqual(1000);
    expect(sends[2] - sends[1]).toBeGreaterThanOrEqual(2000);
  }, 60000);

  it('soft-bounces a request the relay keeps deferring, after 10 sends', async () => {
    const calls = await run(async (input) => ({ sent: 0, failed: 0, deferred: [input.requests[0].requestId] }));
    expect(calls.filter((c) => c.activity === 'send')).toHaveLength(10);
    expect(calls.at(-1)).toMatchObject({ activity: 'failed', input: { reason: expect.stringContaining('deferring') } });
  }, 60000);

  it('records the messages as dropped when cancelled before its launch_date, and sends nothing', async () => {
    const { worker, calls, taskQueue } = await standInWorker(sentAll);
    const launchAt = new Date((await env.currentTimeMs()) + 7 * 24 * 3600_000).toISOString();
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('ScheduledSend', {
        taskQueue, workflowId: `tx-acme-${Math.random().toString(36).slice(2)}`, args: [{ ...one('r3'), launchAt }],
      });
      await handle.cancel();
      return handle.result();
    });
    expect(calls.map((c) => c.activity)).toEqual(['cancelled']);
  }, 60000);
});

describe('AccountSender', () => {
  const signalAll = async (taskQueue: string, workflowId: string, ids: string[]) => {
    let firstRunId: string | undefined;
    for (const id of ids) {
      const handle = await env.client.workflow.signalWithStart('AccountSender', {
        taskQueue, workflowId, args: [{ account: 'acme' }], signal: SEND_SIGNAL, signalArgs: [[{ requestId: id, batchId: `acme_transactional_${id}` }]],
      });
      firstRunId ??= handle.signaledRunId;
    }
    return firstRunId!;
  };

  it('gathers many requests into few attempts, sends each once, continues as new, and ends when idle', async () => {
    // Each attempt takes a while, so requests signalled meanwhile wait and go out together.
    const { worker, calls, taskQueue } = await standInWorker(async (input) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return sentAll(input);
    });
    const workflowId = `sender-acme-${Math.random().toString(36).slice(2)}`;
    // Long batch ids: the run's searchable list fills up after a few dozen, and the run continues as new.
    const ids = Array.from({ length: 120 }, (_, i) => `request-${String(i).padStart(3, '0')}-${'x'.repeat(30)}`);
    const firstRunId = await worker.runUntil(async () => {
      const runId = await signalAll(taskQueue, workflowId, ids);
      await env.client.workflow.getHandle(workflowId).result(); // ends after the idle period (skipped)
      return runId;
    });
    const sends = calls.filter((c) => c.activity === 'send');
    const sentIds = sends.flatMap((c) => c.input.requests.map((r) => r.requestId));
    expect(sentIds.sort()).toEqual([...ids].sort()); // every request, exactly once
    expect(sends.length).toBeLessThan(ids.length); // gathered
    const first = await env.client.workflow.getHandle(workflowId, firstRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
  }, 120000);

  it('sends a deferred request again after its backoff, without holding the others', async () => {
    const { worker, calls, taskQueue } = await standInWorker(async (input, seen) => ({
      sent: 1, failed: 0,
      deferred: input.requests.some((r) => r.requestId === 'slow') && seen.filter((c) => c.input.requests.some((r) => r.requestId === 'slow')).length < 3 ? ['slow'] : [],
    }));
    const workflowId = `sender-acme-${Math.random().toString(36).slice(2)}`;
    await worker.runUntil(async () => {
      await signalAll(taskQueue, workflowId, ['slow']);
      await signalAll(taskQueue, workflowId, ['fast']);
      await env.client.workflow.getHandle(workflowId).result();
    });
    const slow = calls.filter((c) => c.input.requests.some((r) => r.requestId === 'slow')).map((c) => c.at);
    const fast = calls.filter((c) => c.input.requests.some((r) => r.requestId === 'fast'));
    expect(slow).toHaveLength(3);
    expect(slow[2] - slow[1]).toBeGreaterThanOrEqual(2000);
    expect(fast).toHaveLength(1);
    expect(calls.some((c) => c.activity === 'failed')).toBe(false);
  }, 120000);
});
