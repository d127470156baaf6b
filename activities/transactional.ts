import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { ObjectId } from 'mongodb';
import type { Transporter } from 'nodemailer';
import { dkimSigningFor } from '../core/dkim';
import { buildEvent, recordEvents } from '../core/events';
import type { EventDoc, MessageDoc, Store } from '../core/store';
import { messageIdOf, planRequest, type PlannedMessage } from '../core/transactional/plan';
import { suppress, suppressedAmong } from '../core/suppressions';
import { classifyRelayFailure } from '../core/transport';
import type { TransactionalBatchInput } from '../core/workflow-contracts';

export interface TransactionalDeps {
  store: Store;
  transport: Transporter;
  /** Host name in Message-IDs and the events' `mta` field. */
  mtaHost: string;
}

export const REQUEST_NOT_FOUND = 'RequestNotFound';
export const RECIPIENTS_DEFERRED = 'RecipientsDeferred';

/** How often a sending attempt tells Temporal it is alive, whatever a single relay call takes. */
const HEARTBEAT_EVERY_MS = 2000;

/** Activities of the TransactionalBatch workflow, built from their dependencies. */
export function createTransactionalActivities(deps: TransactionalDeps) {
  const { store, transport, mtaHost } = deps;

  /** The request's messages that the send ledger does not show as done yet, and the events of those it does. */
  async function pendingMessages(input: TransactionalBatchInput) {
    const request = await store.sendRequests.findOne({ _id: input.requestId, account: input.account });
    // Only when the API's start timed out after Temporal took it: the client got 503 and retries.
    if (!request) throw ApplicationFailure.nonRetryable(`send request ${input.requestId} not found`, REQUEST_NOT_FOUND);
    const plan = planRequest(request, mtaHost);
    const done = await store.messages
      .find({ _id: { $in: plan.mailIds }, account: input.account })
      .project<Pick<MessageDoc, '_id' | 'event'>>({ _id: 1, event: 1 })
      .toArray();
    const doneIds = new Set(done.map((d) => d._id));
    // Only the messages still to send are built (rendered); signed with the DKIM key of the
    // sender's domain when the account has one (core/dkim.ts).
    const dkim = await dkimSigningFor(store, input.account, plan.sender);
    const pending = plan.mailIds.flatMap((mailId, index) => {
      if (doneIds.has(mailId)) return [];
      const message = plan.message(index);
      if (dkim) message.mail.dkim = dkim;
      return [message];
    });
    return {
      pending, doneEvents: done.map((d) => d.event), total: plan.mailIds.length,
      // A confirmation the visitor just asked for goes out even to an address that unsubscribed.
      checksSuppression: request.purpose !== 'optin-confirmation',
    };
  }

  /**
   * One atomic write puts the outcome and its event in the ledger (the unique _id decides);
   * then the event goes to the events collection. A crash between the two is mended by
   * recordLedgerEvents on the retry.
   */
  async function recordOutcome(message: PlannedMessage, status: MessageDoc['status'], relayResponse: string, event: EventDoc) {
    const row: MessageDoc = {
      _id: message.mailId,
      account: message.subject.account,
      requestId: message.requestId,
      email: message.email,
      messageId: messageIdOf(message.mailId, mtaHost),
      status,
      relayResponse,
      sentAt: new Date(event.timestamp),
      event,
    };
    await store.messages.updateOne({ _id: row._id, account: row.account }, { $setOnInsert: row }, { upsert: true });
    await recordEvents(store, [event]);
  }

  /**
   * On a retry, events of messages the ledger already has may be missing (crash after the
   * ledger write): store them again. Known track_ids are skipped; fresh _ids keep the cursor order.
   */
  async function recordLedgerEvents(events: EventDoc[]) {
    await recordEvents(store, events.map((event) => ({ ...event, _id: new ObjectId() })));
  }

  /** Every message the ledger does not show as done ends with this outcome and its event: none is sent. */
  async function recordUnsent(
    input: TransactionalBatchInput, status: MessageDoc['status'], relayResponse: string, eventOf: (message: PlannedMessage, at: Date) => EventDoc,
  ): Promise<{ sent: number; failed: number }> {
    const { pending, doneEvents, total } = await pendingMessages(input);
    await recordLedgerEvents(doneEvents);
    const at = new Date();
    for (const message of pending) {
      message.subject.sent_timestamp = at;
      await recordOutcome(message, status, relayResponse, eventOf(message, at));
    }
    return { sent: total - pending.length, failed: pending.length };
  }

  return {
    /**
     * Sends every message of the request that the ledger does not already show as sent. A
     * recipient the relay defers (4xx) is left for the next attempt while the others go on; the
     * relay's own trouble (connection, authentication) ends the attempt, to be retried. An attempt
     * stops before its next message once it is cancelled or Temporal stopped hearing from it (its
     * retry would send the same messages meanwhile).
     */
    async sendAcceptedRequest(input: TransactionalBatchInput): Promise<{ sent: number; failed: number }> {
      const context = Context.current();
      const { pending, doneEvents, total, checksSuppression } = await pendingMessages(input);
      await recordLedgerEvents(doneEvents);
      let sent = total - pending.length;
      let failed = 0;
      const deferred: string[] = [];
      // Addresses on the suppression list get no mail: a dropped event each, in the ledger like a send.
      const suppressed = checksSuppression ? await suppressedAmong(store, input.account, pending.map((m) => m.email)) : new Set<string>();
      // Heartbeats on a timer: a slow relay call must not look like a dead worker.
      const beat = setInterval(() => context.heartbeat({ done: sent + failed, total }), HEARTBEAT_EVERY_MS);
      try {
        context.heartbeat({ done: sent, total });
        for (const message of pending) {
          if (context.cancellationSignal.aborted) throw new CancelledFailure(`sending stopped: ${String(context.cancellationSignal.reason ?? 'cancelled')}`);
          const at = new Date();
          message.subject.sent_timestamp = at;
          if (suppressed.has(message.email.toLowerCase())) {
            await recordOutcome(message, 'dropped', 'suppressed', buildEvent('track.mail.dropped', message.subject, at, 'suppressed'));
            failed += 1;
            continue;
          }
          try {
            const info = await transport.sendMail(message.mail);
            await recordOutcome(message, 'sent', String(info.response ?? ''), buildEvent('track.mail.sent', message.subject, at, 'sent'));
            sent += 1;
          } catch (error) {
            const failure = classifyRelayFailure(error);
            if (failure === 'relay') {
              context.log.warn('relay trouble: the attempt ends and is retried', { requestId: input.requestId, error: (error as Error).message });
              throw error;
            }
            if (failure === 'deferred') {
              deferred.push(message.email);
              continue;
            }
            const reason = (error as Error).message;
            const bounce = buildEvent('track.mail.bounced', message.subject, at, 'relay-rejected', {
              bounce_type: 'hard',
              message: reason.split('\n').slice(0, 3).join('\n'),
            });
            await recordOutcome(message, 'failed', reason, bounce);
            await suppress(store, input.account, message.email, 'bounced'); // no more mail to an address that does not exist
            failed += 1;
          }
        }
      } finally {
        clearInterval(beat);
      }
      if (deferred.length > 0) {
        // Retried with the activity's backoff; only these are pending then. When retries run out
        // the workflow records them as soft bounces.
        throw ApplicationFailure.retryable(`the relay deferred ${deferred.length} recipient(s): ${deferred.slice(0, 5).join(', ')}`, RECIPIENTS_DEFERRED);
      }
      return { sent, failed };
    },

    /** After retries ran out: every unsent message gets a soft bounce event, so none is silently lost. */
    async recordUnsentAsFailed(input: TransactionalBatchInput & { reason: string }): Promise<{ sent: number; failed: number }> {
      return recordUnsent(input, 'failed', input.reason, (message, at) => buildEvent('track.mail.bounced', message.subject, at, 'gave-up', {
        bounce_type: 'soft',
        message: `not sent: ${input.reason}`.slice(0, 500),
      }));
    },

    /** A request cancelled before it was sent: every unsent message is dropped (an event each), none is sent. */
    async recordCancelled(input: TransactionalBatchInput): Promise<{ sent: number; failed: number }> {
      return recordUnsent(input, 'dropped', 'cancelled', (message, at) => buildEvent('track.mail.dropped', message.subject, at, 'cancelled'));
    },
  };
}
