// What every activity does to run domain work under Temporal: the send engine's controls taken
// from the activity's Context (heartbeat, cancellation, logger), and the domain's outcomes turned
// into what the workflow reads: a PermanentFailure into a non-retryable ApplicationFailure of its
// type, a stopped send loop into the activity's cancellation.
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { SendingStopped, type SendControls } from '../core/sending/message-loop';
import { PermanentFailure } from '../core/shared/permanent-failure';

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
