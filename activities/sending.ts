// The activities of transactional requests (the AccountSender and ScheduledSend workflows): thin
// adapters over core/transactional/send-requests.ts, which sends through the send engine.
import { Context } from '@temporalio/activity';
import { createRequestSender } from '../core/transactional/send-requests';
import type { SendOutcome, SendRequestsInput } from '../adapters/temporal/contracts';
import { asActivity, engineDeps, sendControls, type SendDeps } from './adapter';

export type { SendDeps };

export function createSendActivities(deps: SendDeps) {
  const requests = createRequestSender(engineDeps(deps));
  return {
    /**
     * Sends the requests' messages the ledger does not show as done; `deferred`: requests with
     * recipients the relay deferred. Relay trouble fails the attempt (retried); a cancellation
     * stops it before its next message.
     */
    sendRequests(input: SendRequestsInput): Promise<SendOutcome> {
      return asActivity(() => requests.send(input, sendControls()));
    },

    /** After retries ran out: every unsent message gets a soft bounce event, so none is silently lost. */
    recordUnsentAsFailed(input: SendRequestsInput & { reason: string }): Promise<SendOutcome> {
      return requests.giveUp(input, input.reason, Context.current().log);
    },

    /** Requests cancelled before they were sent: every unsent message is dropped (an event each), none is sent. */
    recordCancelled(input: SendRequestsInput): Promise<SendOutcome> {
      return requests.cancel(input, Context.current().log);
    },
  };
}
