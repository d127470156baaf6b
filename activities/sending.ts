// The activities of transactional requests (the AccountSender and ScheduledSend workflows): thin
// adapters over core/transactional/send-requests.ts, which sends through the send engine.
import { Context } from '@temporalio/activity';
import { defaultBounceDomain } from '../core/bounces/return-path';
import { createRequestSender } from '../core/transactional/send-requests';
import type { Store } from '../adapters/store/store';
import type { RelaySender } from '../adapters/relay/transport';
import type { SendOutcome, SendRequestsInput } from '../adapters/temporal/contracts';
import { asActivity, sendControls } from './adapter';

export { SEND_CONCURRENCY } from '../core/sending/message-loop';

export interface SendDeps {
  store: Store;
  transport: RelaySender;
  /** Host name in Message-IDs and the events' `mta` field. */
  mtaHost: string;
  /** Where tracking, online-version and unsubscribe links point (HERALD_PUBLIC_URL). */
  publicUrl: string;
  /** The domain of each message's return path (HERALD_BOUNCE_DOMAIN); bounces.<mtaHost> when not given. */
  bounceDomain?: string;
}

export function createSendActivities(deps: SendDeps) {
  const requests = createRequestSender({ ...deps, bounceDomain: deps.bounceDomain ?? defaultBounceDomain(deps.mtaHost) });
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
