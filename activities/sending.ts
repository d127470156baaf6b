// The send engine's activities for transactional requests: accepted requests of one account,
// sent together. Each message is built from its request's shared MIME with its own parts spliced
// in (core/sending/mime-splice.ts) and sent by the shared per-message loop
// (activities/message-sender.ts: suppression, relay, ledger, heartbeats, cancellation), the same
// loop that sends campaign pages.
import { Context } from '@temporalio/activity';
import { defaultBounceDomain } from '../core/bounces/return-path';
import { buildEvent, type EventSubject } from '../core/tracking/events';
import { LedgerWriter } from '../core/sending/ledger';
import type { EventDoc, MessageDoc, SendRequestDoc, Store } from '../adapters/store/store';
import { trackingSecret } from '../core/content/tracking/secret';
import { mailIdOf, planRequest, unbuildableMessages, type PlannedMessage, type RequestPlan } from '../core/sending/plan';
import type { RelaySender } from '../adapters/relay/transport';
import type { QueuedSend, SendOutcome, SendRequestsInput } from '../adapters/temporal/contracts';
import { ledgerRow, recordLedgerEvents as recordLedgerEventsOf, sendMessages, type OutgoingMessage } from './message-sender';

export { SEND_CONCURRENCY } from './message-sender';

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

/** One message still to send, with its request. */
interface PendingMessage extends OutgoingMessage { request: SendRequestDoc }

/** The requests of an attempt, planned, and what the ledger already holds of them. */
interface Work {
  requests: SendRequestDoc[];
  pending: PendingMessage[];
  /** Messages of requests whose content cannot be built, with the reason: recorded as failed. */
  unbuildable: Array<{ messages: PlannedMessage[]; reason: string }>;
  doneEvents: EventDoc[];
  missing: QueuedSend[];
  total: number;
}

export function createSendActivities(deps: SendDeps) {
  const { store, transport, mtaHost, publicUrl } = deps;
  const senderDeps = { store, transport, mtaHost, bounceDomain: deps.bounceDomain ?? defaultBounceDomain(mtaHost) };

  async function loadWork(input: SendRequestsInput): Promise<Work> {
    const { account } = input;
    const ids = input.requests.map((r) => r.requestId);
    const stored = await store.sendRequests.find({ _id: { $in: ids }, account }).toArray();
    const found = new Set(stored.map((r) => r._id));
    const links = { publicUrl, secret: await trackingSecret(store) };
    // A request whose content cannot be built fails alone: the others of the attempt go on.
    const plans: Array<{ request: SendRequestDoc; plan: RequestPlan }> = [];
    const unbuildable: Work['unbuildable'] = [];
    await Promise.all(stored.map(async (request) => {
      try {
        plans.push({ request, plan: await planRequest(request, { mtaHost, links }) });
      } catch (error) {
        const reason = (error as Error).message;
        Context.current().log.error('a send request cannot be built: its messages fail', { requestId: request._id, error: reason });
        try {
          unbuildable.push({ messages: unbuildableMessages(request, mtaHost), reason });
        } catch {
          // not even its recipients can be read: reported like a missing record
        }
      }
    }));
    plans.sort((a, b) => stored.indexOf(a.request) - stored.indexOf(b.request)); // sent in the order asked
    const readable = new Set([...plans.map((p) => p.request._id), ...unbuildable.flatMap((u) => u.messages.map((m) => m.requestId))]);
    const mailIds = [...plans.flatMap(({ plan }) => plan.mailIds), ...unbuildable.flatMap((u) => u.messages.map((m) => m.mailId))];
    const done = mailIds.length === 0 ? [] : await store.messages
      .find({ _id: { $in: mailIds }, account })
      .project<Pick<MessageDoc, '_id' | 'event'>>({ _id: 1, event: 1 })
      .toArray();
    const doneIds = new Set(done.map((d) => d._id));
    // Only the messages still to send are built (rendered), and only when their turn comes.
    const pending = plans.flatMap(({ request, plan }) => plan.mailIds.flatMap((mailId, index) => (
      doneIds.has(mailId) ? [] : [{ message: plan.message(index), sender: plan.sender, ignoreSuppression: request.purpose === 'optin-confirmation', request }]
    )));
    return {
      requests: plans.map((p) => p.request), pending, doneEvents: done.map((d) => d.event), total: mailIds.length,
      unbuildable: unbuildable.map(({ messages, reason }) => ({ messages: messages.filter((m) => !doneIds.has(m.mailId)), reason })),
      missing: input.requests.filter((r) => !found.has(r.requestId) || !readable.has(r.requestId)),
    };
  }

  const rowOf = (message: PlannedMessage, status: MessageDoc['status'], relayResponse: string, event: EventDoc): MessageDoc => (
    ledgerRow(message, status, relayResponse, event, mtaHost)
  );
  const recordLedgerEvents = (events: EventDoc[]) => recordLedgerEventsOf(store, events);

  /**
   * A request whose record is not in the store (its acceptance failed after Temporal took it, or
   * the store lost it): nothing can be sent, and a soft bounce says so, in the ledger like any outcome.
   */
  function recordMissing(ledger: LedgerWriter, account: string, missing: QueuedSend[]): Promise<void[]> {
    const at = new Date();
    return Promise.all(missing.map((queued) => {
      const mailId = mailIdOf(account, queued.requestId, 0);
      const subject: EventSubject = {
        account, batch_id: queued.batchId, mail_id: mailId, email: '', sent_timestamp: at, tags: [], custom_args: {}, mta: mtaHost,
      };
      const event = buildEvent('track.mail.bounced', subject, at, 'request-missing', {
        bounce_type: 'soft', message: `send request ${queued.requestId} was not found in the store: nothing was sent`,
      });
      const message = { mailId, requestId: queued.requestId, email: '', copiesTo: [], subject, raw: () => Buffer.alloc(0) };
      return ledger.record(rowOf(message, 'failed', 'request record not found', event));
    }));
  }

  /** Messages whose content cannot be built: each a soft bounce naming why (the address is not at fault). */
  async function recordUnbuildable(ledger: LedgerWriter, unbuildable: Work['unbuildable']): Promise<number> {
    const at = new Date();
    const messages = unbuildable.flatMap(({ messages: list, reason }) => list.map((message) => ({ message, reason })));
    await Promise.all(messages.map(({ message, reason }) => {
      message.subject.sent_timestamp = at;
      const event = buildEvent('track.mail.bounced', message.subject, at, 'unbuildable', {
        bounce_type: 'soft', message: `the message could not be built: ${reason}`.slice(0, 500),
      });
      return ledger.record(rowOf(message, 'failed', reason, event));
    }));
    return messages.length;
  }

  /** Every message the ledger does not show as done ends with this outcome and its event: none is sent. */
  async function recordUnsent(
    input: SendRequestsInput, status: MessageDoc['status'], relayResponse: string, eventOf: (message: PlannedMessage, at: Date) => EventDoc,
  ): Promise<SendOutcome> {
    const { pending, doneEvents, missing, unbuildable, total } = await loadWork(input);
    const ledger = new LedgerWriter(store);
    await recordLedgerEvents(doneEvents);
    const at = new Date();
    const unbuilt = await recordUnbuildable(ledger, unbuildable);
    await Promise.all([
      recordMissing(ledger, input.account, missing),
      ...pending.map(({ message }) => {
        message.subject.sent_timestamp = at;
        return ledger.record(rowOf(message, status, relayResponse, eventOf(message, at)));
      }),
    ]);
    return { sent: total - pending.length - unbuilt, failed: pending.length + missing.length + unbuilt, deferred: [] };
  }

  return {
    /**
     * Sends every message of the requests that the ledger does not already show as done. A
     * recipient the relay defers (4xx) is left for a later attempt while the others go on (its
     * request is in `deferred`); the relay's own trouble (connection, authentication) ends the
     * attempt, to be retried. An attempt stops taking messages once it is cancelled or Temporal
     * stopped hearing from it (its retry would send the same messages meanwhile); a request whose
     * batch was cancelled gets its unsent messages dropped.
     */
    async sendRequests(input: SendRequestsInput): Promise<SendOutcome> {
      const context = Context.current();
      const { account } = input;
      const work = await loadWork(input);
      const ledger = new LedgerWriter(store);
      await recordLedgerEvents(work.doneEvents);
      await recordMissing(ledger, account, work.missing);
      const unbuilt = await recordUnbuildable(ledger, work.unbuildable);
      const before = work.total - work.pending.length - unbuilt; // sent by an earlier attempt
      const cancelled = new Set(work.requests.filter((r) => r.cancelledAt).map((r) => r._id));
      const ids = work.requests.map((r) => r._id);
      const tally = await sendMessages(senderDeps, {
        account,
        messages: work.pending,
        // A request whose batch was cancelled gets its unsent messages dropped.
        isDropped: (item) => cancelled.has(item.request._id),
        beat: (done) => context.heartbeat({ done: before + done, total: work.total }),
        poll: async () => {
          const found = await store.sendRequests.find({ _id: { $in: ids }, account, cancelledAt: { $exists: true } }).project<{ _id: string }>({ _id: 1 }).toArray();
          found.forEach((r) => cancelled.add(r._id));
        },
      });
      return {
        sent: before + tally.sent,
        failed: work.missing.length + unbuilt + tally.failed + tally.dropped,
        deferred: [...new Set(tally.deferred.map((item) => item.request._id))],
      };
    },

    /** After retries ran out: every unsent message gets a soft bounce event, so none is silently lost. */
    async recordUnsentAsFailed(input: SendRequestsInput & { reason: string }): Promise<SendOutcome> {
      return recordUnsent(input, 'failed', input.reason, (message, at) => buildEvent('track.mail.bounced', message.subject, at, 'gave-up', {
        bounce_type: 'soft',
        message: `not sent: ${input.reason}`.slice(0, 500),
      }));
    },

    /** Requests cancelled before they were sent: every unsent message is dropped (an event each), none is sent. */
    async recordCancelled(input: SendRequestsInput): Promise<SendOutcome> {
      return recordUnsent(input, 'dropped', 'cancelled', (message, at) => buildEvent('track.mail.dropped', message.subject, at, 'cancelled'));
    },
  };
}
