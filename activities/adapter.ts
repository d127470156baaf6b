// What every activity does to run domain work under Temporal: the send engine's dependencies and
// its controls taken from the activity's Context (heartbeat, cancellation, logger), and the
// domain's outcomes turned into what the workflow reads: a PermanentFailure into a non-retryable
// ApplicationFailure of its type, a stopped send loop into the activity's cancellation.
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { defaultBounceDomain } from '../core/bounces/return-path';
import { SendingStopped, type MessageLoopDeps, type SendControls } from '../core/sending/message-loop';
import type { SendPriority } from '../core/sending/priority';
import { PermanentFailure } from '../core/shared/permanent-failure';
import type { Store } from '../adapters/store/store';
import type { RelaySender } from '../adapters/relay/transport';

/** What each group of sending activities (transactional, campaigns, automations) is built from. */
export interface SendDeps {
  store: Store;
  transport: RelaySender;
  /** Host name in Message-IDs and the events' `mta` field. */
  mtaHost: string;
  /** Where tracking, online-version and unsubscribe links point (HERALD_PUBLIC_URL). */
  publicUrl: string;
  /** The domain of each message's return path (HERALD_BOUNCE_DOMAIN); bounces.<mtaHost> when not given. */
  bounceDomain?: string;
  /** One per worker, shared by its sending groups: transactional pages ahead of campaign messages. */
  priority?: SendPriority;
}

/** The send engine's dependencies from the worker's settings. */
export function engineDeps(deps: SendDeps): MessageLoopDeps & { publicUrl: string } {
  const { store, transport, mtaHost, publicUrl, priority } = deps;
  return { store, transport, mtaHost, publicUrl, priority, bounceDomain: deps.bounceDomain ?? defaultBounceDomain(mtaHost) };
}

/** The running activity's heartbeat, cancellation signal and logger, for the send engine. */
export function sendControls(): SendControls {
  const context = Context.current();
  return { signal: context.cancellationSignal, log: context.log, heartbeat: (details?: unknown) => context.heartbeat(details) };
}

/** Runs the domain's work as the activity's body, translating its outcomes for Temporal. */
export async function asActivity<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SendingStopped) throw new CancelledFailure(error.message);
    if (error instanceof PermanentFailure) throw ApplicationFailure.nonRetryable(error.message, error.type);
    throw error;
  }
}
