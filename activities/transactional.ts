import { ApplicationFailure, Context } from '@temporalio/activity';
import { ObjectId } from 'mongodb';
import type { Transporter } from 'nodemailer';
import { dkimSigningFor } from '../core/dkim';
import { buildEvent, recordEvents } from '../core/events';
import type { EventDoc, MessageDoc, Store } from '../core/store';
import { messageIdOf, planMessages, type PlannedMessage } from '../core/transactional/plan';
import { readHttpBody, readSmtpSubmission } from '../core/transactional/request';
import { isPermanentRejection } from '../core/transport';
import type { TransactionalBatchInput } from '../core/workflow-contracts';

export interface TransactionalDeps {
  store: Store;
  transport: Transporter;
  /** Host name in Message-IDs and the events' `mta` field. */
  mtaHost: string;
}

export const REQUEST_NOT_FOUND = 'RequestNotFound';

/** Activities of the TransactionalBatch workflow, built from their dependencies. */
export function createTransactionalActivities(deps: TransactionalDeps) {
  const { store, transport, mtaHost } = deps;

  /** The request's messages that the send ledger does not show as done yet, and the events of those it does. */
  async function pendingMessages(input: TransactionalBatchInput) {
    const request = await store.sendRequests.findOne({ _id: input.requestId, account: input.account });
    // Only when the API's start timed out after Temporal took it: the client got 503 and retries.
    if (!request) throw ApplicationFailure.nonRetryable(`send request ${input.requestId} not found`, REQUEST_NOT_FOUND);
    const plan = planMessages(request, mtaHost);
    // Signed with the DKIM key of the sender's domain, when the account has one (core/dkim.ts).
    const from = request.source === 'smtp' ? readSmtpSubmission(request).mailFrom : readHttpBody(request).from.email;
    const dkim = await dkimSigningFor(store, input.account, from);
    if (dkim) for (const message of plan) message.mail.dkim = dkim;
    const done = await store.messages
      .find({ _id: { $in: plan.map((p) => p.mailId) }, account: input.account })
      .project<Pick<MessageDoc, '_id' | 'event'>>({ _id: 1, event: 1 })
      .toArray();
    const doneIds = new Set(done.map((d) => d._id));
    return { pending: plan.filter((p) => !doneIds.has(p.mailId)), doneEvents: done.map((d) => d.event), total: plan.length };
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

  return {
    /** Sends every message of the request that the ledger does not already show as sent. */
    async sendAcceptedRequest(input: TransactionalBatchInput): Promise<{ sent: number; failed: number }> {
      const { pending, doneEvents, total } = await pendingMessages(input);
      await recordLedgerEvents(doneEvents);
      let sent = total - pending.length;
      let failed = 0;
      for (const message of pending) {
        Context.current().heartbeat({ done: sent + failed, total });
        const at = new Date();
        message.subject.sent_timestamp = at;
        try {
          const info = await transport.sendMail(message.mail);
          await recordOutcome(message, 'sent', String(info.response ?? ''), buildEvent('track.mail.sent', message.subject, at, 'sent'));
          sent += 1;
        } catch (error) {
          if (!isPermanentRejection(error)) throw error; // transient: the activity is retried
          const reason = (error as Error).message;
          const bounce = buildEvent('track.mail.bounced', message.subject, at, 'relay-rejected', {
            bounce_type: 'hard',
            message: reason.split('\n').slice(0, 3).join('\n'),
          });
          await recordOutcome(message, 'failed', reason, bounce);
          failed += 1;
        }
      }
      return { sent, failed };
    },

    /** After retries ran out: every unsent message gets a soft bounce event, so none is silently lost. */
    async recordUnsentAsFailed(input: TransactionalBatchInput & { reason: string }): Promise<{ sent: number; failed: number }> {
      const { pending, doneEvents, total } = await pendingMessages(input);
      await recordLedgerEvents(doneEvents);
      const at = new Date();
      for (const message of pending) {
        const bounce = buildEvent('track.mail.bounced', message.subject, at, 'gave-up', {
          bounce_type: 'soft',
          message: `not sent: ${input.reason}`.slice(0, 500),
        });
        await recordOutcome(message, 'failed', input.reason, bounce);
      }
      return { sent: total - pending.length, failed: pending.length };
    },
  };
}
