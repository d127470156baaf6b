// Retention under the soak: a second account keeps its history the shortest time Herald allows
// (7 days) and gets single sends all run long, while Herald's own pruning of an account
// (core/retention/prune-account.ts, as the hourly run calls it) goes over it each minute with its
// clock moved 7 days ahead, less RETAINED_MS: its history older than RETAINED_MS goes, as its
// 7 days would in production. Only this account: the moved clock would also expire the main
// account's Idempotency-Key claims (kept 24 hours whatever the retention), and the main account
// keeps all of its history for the other checks.
// At the end: no message sent before the horizon is left in the store, and the daily stats still
// count every message (what pruning removes is rolled up first).
import type { Store } from '../../adapters/store/store';
import { DEFAULT_PRUNE_TUNING } from '../../core/retention/pages';
import { MIN_RETENTION_DAYS } from '../../core/retention/policy';
import { pruneAccount } from '../../core/retention/prune-account';
import { callRecorded } from './answers';
import { every, heraldCli, SOAK_DOMAIN, type SoakContext } from './context';
import { sendBody } from './transactional-load';
import type { SoakSink } from './mail-sink';
import { copyKey } from './mail-sink';

export const RETAINED_ACCOUNT = 'soakretained';
/** How much of the account's history the moved clock leaves: a few minutes, so the run prunes most of what it sends. */
export const RETAINED_MS = 3 * 60_000;
const PRUNE_EVERY_MS = 60_000;
const SENDS_PER_S = 2;
const DAY_MS = 86_400_000;

export const retainedSubject = (to: string) => `soak retained ${to}`;

export interface RetentionRun {
  account: string;
  transactionalKey: string;
  apiKey: string;
  /** Addresses of the sends answered 202, one message each. */
  accepted: string[];
  /** Sends that got no answer (Herald may have taken them). */
  unanswered: number;
  /** Pruning runs that finished, and those a fault ended. */
  prunes: number;
  pruneErrors: number;
  /** Events removed over the run. */
  eventsPruned: number;
}

export interface RetentionCheck {
  accepted: number;
  /** Accepted messages not at the sink. */
  undelivered: number;
  /** Events of messages sent before the horizon still in the store after the last pruning (0 expected). */
  eventsPastHorizon: number;
  /** Events the account has in the store at the end (what the horizon keeps). */
  eventsKept: number;
  eventsPruned: number;
  /** The daily stats' `sent` total: every message sent, pruned or not. */
  statsSent: number;
  /**
   * How far `statsSent` is outside what was sent: at least the accepted messages at the sink, at
   * most those and the sends that got no answer (0 expected).
   */
  statsMiscount: number;
}

/** Creates the account with the shortest retention, through the CLI as an operator would. */
export function createRetainedAccount(env: NodeJS.ProcessEnv): RetentionRun {
  const created = JSON.parse(heraldCli(env, 'account', 'create', RETAINED_ACCOUNT)) as { account: string; apiKey: string; transactionalKey: string };
  heraldCli(env, 'account', 'set', RETAINED_ACCOUNT, '--retention-days', String(MIN_RETENTION_DAYS));
  return { ...created, accepted: [], unanswered: 0, prunes: 0, pruneErrors: 0, eventsPruned: 0 };
}

/** Single sends to the account while the load runs. */
export function retainedSends(ctx: SoakContext, run: RetentionRun): Promise<void> {
  return every(ctx, 1000 / SENDS_PER_S, async (n) => {
    const to = `r${n}@${SOAK_DOMAIN}`;
    const answer = await callRecorded(ctx.answers, 'retained_send', `${ctx.apiUrl}/v1/mail/send`, {
      headers: { authorization: `Bearer ${run.transactionalKey}` },
      json: sendBody(to, retainedSubject(to)),
    });
    if (answer?.status === 202) run.accepted.push(to);
    if (!answer) run.unanswered += 1;
  }, 10);
}

/** One pruning run with the clock moved ahead; a run a fault ends is counted and left to the next. */
export async function pruneOnce(store: Store, run: RetentionRun): Promise<void> {
  try {
    const result = await pruneAccount(store, run.account, {
      holder: 'soak-pruner',
      now: new Date(Date.now() + MIN_RETENTION_DAYS * DAY_MS - RETAINED_MS),
      tuning: DEFAULT_PRUNE_TUNING,
      controls: { progress: () => undefined, stopped: () => false },
    });
    run.prunes += 1;
    if (result.state === 'pruned') run.eventsPruned += result.events;
  } catch {
    run.pruneErrors += 1;
  }
}

/** Pruning each minute while the load runs. */
export async function pruneEveryMinute(ctx: SoakContext, store: Store, run: RetentionRun): Promise<void> {
  await every(ctx, PRUNE_EVERY_MS, () => pruneOnce(store, run));
}

/** After the drain and one last pruning: the horizon holds, every message arrived and is still counted. */
export async function checkRetention(ctx: SoakContext, store: Store, sink: SoakSink, run: RetentionRun): Promise<RetentionCheck> {
  const horizon = new Date(Date.now() - RETAINED_MS - PRUNE_EVERY_MS);
  await pruneOnce(store, run);
  const eventsPastHorizon = await store.events.countDocuments({ account: run.account, sent_timestamp: { $lt: horizon.toISOString() } });
  const eventsKept = await store.events.countDocuments({ account: run.account });
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 2 * DAY_MS).toISOString().slice(0, 10);
  const stats = await callRecorded(ctx.answers, 'retained_stats', `${ctx.apiUrl}/v2/${run.account}/stats/daily?from=${from}&to=${today}`, { headers: { authorization: `Bearer ${run.apiKey}` } });
  const statsSent = stats?.status === 200 ? (JSON.parse(stats.text) as { data: { totals: { sent: number } } }).data.totals.sent : -1;
  const undelivered = run.accepted.filter((to) => !sink.copies.has(copyKey(to, retainedSubject(to)))).length;
  const atLeast = run.accepted.length - undelivered;
  const atMost = run.accepted.length + run.unanswered;
  return {
    accepted: run.accepted.length,
    undelivered,
    eventsPastHorizon,
    eventsKept,
    eventsPruned: run.eventsPruned,
    statsSent,
    statsMiscount: Math.max(0, atLeast - statsSent, statsSent - atMost),
  };
}
