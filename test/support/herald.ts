// A Herald for a test file: API, SMTP listener and worker against the suite's real Temporal and
// store, relaying to a recording SMTP sink. A file that takes the defaults (at most the sink's
// options) gets its jest worker's shared stack (./worker-stack.ts): started once per worker, its
// files each on their own accounts. A file with other options starts a stack of its own
// (./own-stack.ts), with its own database, and ends it at stop(). HERALD_TEST_SHARED_STACK=0
// gives every file its own.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { createAccount, type NewAccount } from '../../core/accounts/accounts';
import type { Herald, HeraldTuning } from '../../composition/herald';
import { newId } from '../../core/shared/ids';
import { connectStore, type Store } from '../../adapters/store/store';
import type { Sink, StackOptions } from './own-stack';
import type { SinkOptions } from './smtp-sink';
import { suiteMongodbUri } from './suite';
import type { WorkerStack } from './worker-stack';
import { workerStackGetter } from './worker-stack-handle';

export { dropDatabase, suiteMongodbUri } from './suite';

/** The parts a test reaches into: the store, the Temporal client and the task queue. */
export interface TestServices { store: Store; temporal: Client; taskQueue: string }

export interface TestHerald {
  baseUrl: string;
  smtpPort: number;
  services: TestServices;
  herald: Herald;
  sink: Sink;
  newAccount(name?: string): Promise<NewAccount>;
  stop(): Promise<void>;
}

/**
 * Another Herald on the suite's store and Temporal, from the test environment and `env`
 * (a second API on a test's database, another metrics token, a Temporal where nothing listens).
 */
export function composeTestHerald(env: Record<string, string>, tuning: HeraldTuning = {}): Herald {
  const { loadConfig } = require('../../composition/config') as typeof import('../../composition/config');
  const { composeHerald } = require('../../composition/herald') as typeof import('../../composition/herald');
  const { createLogger } = require('../../adapters/logger') as typeof import('../../adapters/logger');
  const config = loadConfig({ ...process.env, MONGODB_URI: suiteMongodbUri(), HERALD_LOG_LEVEL: 'silent', ...env });
  return composeHerald(config, { logger: createLogger('silent'), ...tuning });
}

/** Listens on a free loopback port; resolves to the base URL. */
export async function listenLocally(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The options only the sink reads: a stack shared by several test files takes these per file. */
const SINK_OPTIONS: { [name in keyof Required<SinkOptions>]: true } = {
  rejectRecipients: true, deferRecipients: true, refuseAuth: true, delayMs: true, answer421: true, dropAfter: true,
};

/** Options the shared stack can take: none but the sink's. */
function shareable(options: StackOptions): boolean {
  return Object.keys(options).every((name) => name in SINK_OPTIONS);
}

/**
 * A test Herald: the worker's shared stack when `options` are at most the sink's, else one of the
 * file's own (see the top of this file). `ownStack`: one of its own anyway, for a file that reads
 * what a process holds (the metrics registry of its realm) rather than what the store holds.
 */
export async function startTestHerald(options: StackOptions & { ownStack?: boolean } = {}): Promise<TestHerald> {
  // `options` itself goes on to the sink, which the file may change while Herald runs.
  const shared = process.env.HERALD_TEST_SHARED_STACK === '0' || options.ownStack ? undefined : workerStackGetter();
  if (shared && shareable(options)) return onSharedStack(await shared(), options);
  const { startStack } = await import('./own-stack');
  const stack = await startStack(`herald_test_${newId().slice(0, 10)}`, options);
  return {
    baseUrl: stack.baseUrl,
    smtpPort: stack.smtpPort,
    services: { store: stack.store, temporal: stack.temporal, taskQueue: stack.config.taskQueue },
    herald: stack.herald,
    sink: stack.sink,
    newAccount: newAccountsOf(stack.store),
    stop: () => stack.stop(),
  };
}

/**
 * The file's view of its worker's stack: the sink emptied and given the file's options, and a
 * store client and (on first use) Temporal client of the file's own, so that what a test reads
 * is of its realm (its Dates, its error classes). stop() closes those; the stack runs on.
 */
async function onSharedStack(stack: WorkerStack, sinkOptions: StackOptions): Promise<TestHerald> {
  stack.sink.reset(sinkOptions);
  const store = await connectStore(suiteMongodbUri(), stack.database);
  let temporal: Client | undefined;
  const { temporalAddress, temporalNamespace, taskQueue } = stack.herald.config;
  const services: TestServices = {
    store,
    taskQueue,
    get temporal() {
      if (!temporal) {
        const { lazyTemporal } = require('../../adapters/temporal/client') as typeof import('../../adapters/temporal/client');
        temporal = lazyTemporal(temporalAddress!, temporalNamespace);
      }
      return temporal;
    },
  };
  return {
    baseUrl: stack.baseUrl,
    smtpPort: stack.smtpPort,
    services,
    herald: stack.herald,
    sink: stack.sink,
    newAccount: newAccountsOf(store),
    async stop() {
      await untilNothingSends(store);
      await temporal?.connection.close();
      await store.close();
    },
  };
}

/**
 * Waits, for a while at most, until the shared stack sends nothing (no sender draining, no queued
 * request due, no campaign sending): the next file's sink then receives that file's mail only.
 */
async function untilNothingSends(store: Store): Promise<void> {
  // A safety net, not a measure: a file's 1,001-recipient send outlasted 10 s on a slow run and
  // reached the next file's sink. Nothing waits when nothing sends; 40 s stays within afterAll's 60.
  for (const deadline = Date.now() + 40_000; Date.now() < deadline;) {
    const now = new Date();
    const busy = await store.senders.findOne({ drainingUntil: { $gt: now } })
      ?? await store.sendQueue.findOne({ $or: [{ dueAt: { $exists: false } }, { dueAt: { $lte: new Date(now.getTime() + 10_000) } }] })
      // A launch begun in the last 10 minutes and not paused (a record a test wrote as SENDING, dated long ago, sends nothing).
      ?? await store.campaigns.findOne({ state: 'SENDING', 'launch.paused': { $ne: true }, lastModified: { $gt: new Date(now.getTime() - 600_000) } });
    if (!busy) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Accounts named acctN plus a random part: unique on a store that several files share. */
function newAccountsOf(store: Store): (name?: string) => Promise<NewAccount> {
  let accounts = 0;
  return (name) => createAccount(store, name ?? `acct${(accounts += 1)}${newId().slice(0, 6)}`);
}
