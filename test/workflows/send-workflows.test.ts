// The send workflows' control flow on the time-skipping test server: retry backoff, launch
// dates and idle periods pass in a moment. Activities here are stand-ins that record their calls
// (and fail on purpose); the real ones are covered end to end in test/integration.
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { temporalTestServerPath } from '../../infra/python-tools';
import { RING_SIGNAL, type DrainResult, type QueueGiveUpInput, type SendOutcome, type SendRequestsInput } from '../../adapters/temporal/contracts';
import { installTestTemporalRuntime } from '../support/temporal-logs';
import { cancellationTaken } from '../support/time-skipping';
import { releaseWorkflowHooks, testWorkerOptions } from '../support/workflow-bundle';

let env: TestWorkflowEnvironment;

afterAll(releaseWorkflowHooks); // what its workers in debugMode left for the whole process
beforeAll(async () => {
  installTestTemporalRuntime(); // the failures below are on purpose: their logs show only if a test fails
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: await temporalTestServerPath() } },
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
    ...testWorkerOptions(),
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
      await cancellationTaken(handle); // before the result lets time skip: the test server's cancel race
      return handle.result();
    });
    expect(calls.map((c) => c.activity)).toEqual(['cancelled']);
  }, 60000);
});

describe('AccountSender', () => {
  interface DrainCall { at: number; activity: 'drain' | 'give-up'; input: { account: string } & Partial<QueueGiveUpInput> }

  /** A worker whose drainSendQueue answers with `drain` (called with the number of drains so far). */
  async function drainWorker(drain: (drains: number) => Promise<DrainResult>) {
    const calls: DrainCall[] = [];
    const taskQueue = `drain-${Math.random().toString(36).slice(2)}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      ...testWorkerOptions(),
      activities: {
        drainSendQueue: async (input: { account: string }) => {
          calls.push({ at: await env.currentTimeMs(), activity: 'drain', input });
          return drain(calls.filter((c) => c.activity === 'drain').length);
        },
        giveUpSendQueue: async (input: QueueGiveUpInput) => {
          calls.push({ at: await env.currentTimeMs(), activity: 'give-up', input });
          return { sent: 0, failed: 1, deferred: [] };
        },
      },
    });
    return { worker, calls, taskQueue, workflowId: `sender-acme-${Math.random().toString(36).slice(2)}` };
  }

  const ring = (taskQueue: string, workflowId: string) => env.client.workflow.signalWithStart('AccountSender', {
    taskQueue, workflowId, args: [{ account: 'acme' }], signal: RING_SIGNAL, signalArgs: [],
  });
  const idle: DrainResult = { sent: 1, failed: 0, left: 0 };

  it('drains when rung, drains again when rung during a drain, and ends once idle', async () => {
    let release!: () => void;
    const firstDrainHeld = new Promise<void>((resolve) => { release = resolve; });
    let inFirst!: () => void;
    const firstDrainStarted = new Promise<void>((resolve) => { inFirst = resolve; });
    const { worker, calls, taskQueue, workflowId } = await drainWorker(async (drains) => {
      if (drains === 1) {
        inFirst();
        await firstDrainHeld;
      }
      return idle;
    });
    await worker.runUntil(async () => {
      await ring(taskQueue, workflowId);
      await firstDrainStarted;
      await ring(taskQueue, workflowId); // while the first drain runs
      await ring(taskQueue, workflowId);
      release();
      await env.client.workflow.getHandle(workflowId).result(); // ends after the idle period (skipped)
    });
    expect(calls.map((c) => c.activity)).toEqual(['drain', 'drain']); // the rings during a drain ask for one more
    expect(calls[0].input).toEqual({ account: 'acme' });
  }, 60000);

  it('starts a drain when a deferred request falls due, without a ring', async () => {
    const { worker, calls, taskQueue, workflowId } = await drainWorker(async (drains) => (
      drains === 1 ? { sent: 0, failed: 0, left: 1, nextDueAt: (await env.currentTimeMs()) + 30_000 } : idle
    ));
    await worker.runUntil(async () => {
      await ring(taskQueue, workflowId);
      await env.client.workflow.getHandle(workflowId).result();
    });
    const drains = calls.map((c) => c.at);
    expect(drains).toHaveLength(2);
    expect(drains[1] - drains[0]).toBeGreaterThanOrEqual(30_000);
  }, 60000);

  it('starts the next drain at once when one stopped with requests ready (its time was up)', async () => {
    const { worker, calls, taskQueue, workflowId } = await drainWorker(async (drains) => (drains === 1 ? { ...idle, left: 5, again: true } : idle));
    await worker.runUntil(async () => {
      await ring(taskQueue, workflowId);
      await env.client.workflow.getHandle(workflowId).result();
    });
    expect(calls.map((c) => c.activity)).toEqual(['drain', 'drain']);
  }, 60000);

  it('retries a drain the relay fails with backoff, then gives up the requests accepted before it began, and drains the rest', async () => {
    const { worker, calls, taskQueue, workflowId } = await drainWorker(async (drains) => {
      if (drains <= 10) throw new Error('connect ECONNREFUSED');
      return idle;
    });
    await worker.runUntil(async () => {
      await ring(taskQueue, workflowId);
      await env.client.workflow.getHandle(workflowId).result();
    });
    expect(calls.map((c) => c.activity)).toEqual([...Array(10).fill('drain'), 'give-up', 'drain']);
    const giveUp = calls[10];
    expect(giveUp.input).toMatchObject({ account: 'acme', reason: 'connect ECONNREFUSED' });
    expect(giveUp.input.acceptedBefore).toBeLessThanOrEqual(calls[0].at); // only what waited through every retry
    expect(calls[9].at - calls[0].at).toBeGreaterThan(60_000); // backoff between the attempts
  }, 60000);
});
