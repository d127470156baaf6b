// The send engine's activities: accepted requests of one account, sent together. Messages go out
// concurrently over the pooled relay transport, each built from its request's shared MIME with
// its own parts spliced in (core/sending/mime-splice.ts), and each outcome is in the send ledger
// (grouped writes: core/sending/ledger.ts) before its sender takes the next message, so at most
// SEND_CONCURRENCY messages are between the relay's answer and the ledger at any moment: what a
// crash can make a resend send twice, each time with the same Message-ID.
import { CancelledFailure, Context } from '@temporalio/activity';
import { ObjectId } from 'mongodb';
import { defaultBounceDomain, returnPathOf } from '../core/bounces/return-path';
import { dkimSigningFor } from '../core/dkim';
import { buildEvent, recordEvents, type EventSubject } from '../core/events';
import { LedgerWriter } from '../core/sending/ledger';
import type { EventDoc, MessageDoc, SendRequestDoc, Store } from '../core/store';
import { suppress, suppressedAmong } from '../core/suppressions';
import { trackingSecret } from '../core/tracking-secret';
import { mailIdOf, messageIdOf, planRequest, unbuildableMessages, type PlannedMessage, type RequestPlan } from '../core/transactional/plan';
import { classifyRelayFailure, type RelayMessage, type RelaySender } from '../core/transport';
import type { QueuedSend, SendOutcome, SendRequestsInput } from '../core/workflow-contracts';

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

/** Messages of one attempt handed to the transport at once; its pool spreads them over its connections. */
export const SEND_CONCURRENCY = 50;
/** How often a sending attempt tells Temporal it is alive, whatever a single relay call takes. */
const HEARTBEAT_EVERY_MS = 2000;
/** How often a sending attempt looks for requests whose batch was cancelled meanwhile. */
const CANCEL_POLL_MS = 1000;

/** One message still to send, with what its request gives every message. */
interface PendingMessage { message: PlannedMessage; plan: RequestPlan; request: SendRequestDoc }

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
  const bounceDomain = deps.bounceDomain ?? defaultBounceDomain(mtaHost);

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
      doneIds.has(mailId) ? [] : [{ message: plan.message(index), plan, request }]
    )));
    return {
      requests: plans.map((p) => p.request), pending, doneEvents: done.map((d) => d.event), total: mailIds.length,
      unbuildable: unbuildable.map(({ messages, reason }) => ({ messages: messages.filter((m) => !doneIds.has(m.mailId)), reason })),
      missing: input.requests.filter((r) => !found.has(r.requestId) || !readable.has(r.requestId)),
    };
  }

  const rowOf = (message: PlannedMessage, status: MessageDoc['status'], relayResponse: string, event: EventDoc): MessageDoc => ({
    _id: message.mailId,
    account: message.subject.account,
    requestId: message.requestId,
    email: message.email,
    messageId: messageIdOf(message.mailId, mtaHost),
    status,
    relayResponse,
    sentAt: new Date(event.timestamp),
    event,
  });

  /**
   * On a retry, events of messages the ledger already has may be missing (a crash between the
   * two writes): stored again. Known track_ids are skipped; fresh _ids keep the cursor order.
   */
  const recordLedgerEvents = (events: EventDoc[]) => recordEvents(store, events.map((event) => ({ ...event, _id: new ObjectId() })));

  /**
   * A request whose record is not in the store (its acceptance failed after Temporal took it, or
   * the store lost it): nothing can be sent, and a soft bounce says so, in the ledger like any outcome.
   */
  function recordMissing(ledger: LedgerWriter, account: string, missing: QueuedSend[]): Promise<void[]> {
    const at = new Date();
    return Promise.all(missing.map((queued) => {
      const mailId = mailIdOf(queued.requestId, 0);
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
      let sent = work.total - work.pending.length - unbuilt;
      let failed = work.missing.length + unbuilt;
      const deferred = new Set<string>();
      const cancelled = new Set(work.requests.filter((r) => r.cancelledAt).map((r) => r._id));
      // Addresses on the suppression list get no mail. A confirmation the visitor just asked for
      // goes out even to an address that unsubscribed.
      const checked = work.pending.filter(({ request }) => request.purpose !== 'optin-confirmation');
      const suppressed = await suppressedAmong(store, account, checked.flatMap(({ message }) => [message.email, ...message.copiesTo]));
      const isSuppressed = (request: SendRequestDoc, email: string) => request.purpose !== 'optin-confirmation' && suppressed.has(email.toLowerCase());
      const signing = new Map<string, Promise<RelayMessage['dkim']>>();
      const dkimFor = (sender: string) => {
        if (!signing.has(sender)) signing.set(sender, dkimSigningFor(store, account, sender));
        return signing.get(sender)!;
      };

      const returnPathKey = await trackingSecret(store); // signs each message's return path
      let stop: unknown;
      let next = 0;
      const sendOne = async ({ message, plan, request }: PendingMessage) => {
        const at = new Date();
        message.subject.sent_timestamp = at;
        if (cancelled.has(request._id)) {
          await ledger.record(rowOf(message, 'dropped', 'cancelled', buildEvent('track.mail.dropped', message.subject, at, 'cancelled')));
          failed += 1;
          return;
        }
        if (isSuppressed(request, message.email)) {
          await ledger.record(rowOf(message, 'dropped', 'suppressed', buildEvent('track.mail.dropped', message.subject, at, 'suppressed')));
          failed += 1;
          return;
        }
        // A suppressed cc or bcc only leaves the envelope: the copy still shows whom it was addressed to.
        const to = [message.email, ...message.copiesTo.filter((email) => !isSuppressed(request, email))];
        let response: string;
        try {
          // The envelope sender is the message's own return path, so its bounces name it
          // (core/bounces); DKIM still signs for the sender's domain.
          const from = returnPathOf(message.mailId, returnPathKey, bounceDomain);
          const info = await transport.sendMail({ envelope: { from, to }, raw: message.raw(), dkim: await dkimFor(plan.sender) });
          response = String(info.response ?? '');
        } catch (error) {
          const failure = classifyRelayFailure(error);
          if (failure === 'relay') {
            context.log.warn('relay trouble: the attempt ends and is retried', { requestId: request._id, error: (error as Error).message });
            stop ??= error;
            return;
          }
          if (failure === 'deferred') {
            deferred.add(request._id);
            return;
          }
          const reason = (error as Error).message;
          const bounce = buildEvent('track.mail.bounced', message.subject, at, 'relay-rejected', {
            bounce_type: 'hard',
            message: reason.split('\n').slice(0, 3).join('\n'),
          });
          await ledger.record(rowOf(message, 'failed', reason, bounce));
          await suppress(store, account, message.email, 'bounced'); // no more mail to an address that does not exist
          failed += 1;
          return;
        }
        await ledger.record(rowOf(message, 'sent', response, buildEvent('track.mail.sent', message.subject, at, 'sent')));
        sent += 1;
      };
      const sender = async () => {
        while (stop === undefined && next < work.pending.length) {
          if (context.cancellationSignal.aborted) {
            stop = new CancelledFailure(`sending stopped: ${String(context.cancellationSignal.reason ?? 'cancelled')}`);
            break;
          }
          try {
            await sendOne(work.pending[next++]);
          } catch (error) {
            stop ??= error; // the ledger could not be written: this attempt ends, its retry resends from the ledger
          }
        }
      };

      // Heartbeats on a timer: a slow relay call must not look like a dead worker.
      const beat = setInterval(() => context.heartbeat({ done: sent + failed, total: work.total }), HEARTBEAT_EVERY_MS);
      const ids = work.requests.map((r) => r._id);
      const poll = setInterval(() => {
        store.sendRequests.find({ _id: { $in: ids }, account, cancelledAt: { $exists: true } }).project<{ _id: string }>({ _id: 1 }).toArray()
          .then((found) => found.forEach((r) => cancelled.add(r._id)), () => undefined);
      }, CANCEL_POLL_MS);
      try {
        context.heartbeat({ done: sent, total: work.total });
        await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, work.pending.length) }, sender));
      } finally {
        clearInterval(beat);
        clearInterval(poll);
      }
      if (stop !== undefined) throw stop;
      return { sent, failed, deferred: [...deferred] };
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
