import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Transporter } from 'nodemailer';
import { buildEvent, recordEvents } from '../core/events';
import type { EventDoc, MessageDoc, Store } from '../core/store';
import { messageIdOf, planMessages, type PlannedMessage } from '../core/transactional/plan';
import { isPermanentRejection } from '../core/transport';
import type { TransactionalBatchInput } from '../workflows/transactional-batch';

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

  /** The request's messages that the send ledger does not show as done yet. */
  async function pendingMessages(input: TransactionalBatchInput) {
    const request = await store.sendRequests.findOne({ _id: input.requestId, account: input.account });
    // Only when the API's start timed out after Temporal took it: the client got 503 and retries.
    if (!request) throw ApplicationFailure.nonRetryable(`send request ${input.requestId} not found`, REQUEST_NOT_FOUND);
    const plan = planMessages(request, mtaHost);
    const done = await store.messages
      .find({ _id: { $in: plan.map((p) => p.mailId) }, account: input.account })
      .project<{ _id: string }>({ _id: 1 })
      .toArray();
    const doneIds = new Set(done.map((d) => d._id));
    return { pending: plan.filter((p) => !doneIds.has(p.mailId)), total: plan.length };
  }

  /** Ledger row first (the unique _id decides), then the event (its track_id is deterministic too). */
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
    };
    await store.messages.updateOne({ _id: row._id, account: row.account }, { $setOnInsert: row }, { upsert: true });
    await recordEvents(store, [event]);
  }

  return {
    /** Sends every message of the request that the ledger does not already show as sent. */
    async sendAcceptedRequest(input: TransactionalBatchInput): Promise<{ sent: number; failed: number }> {
      const { pending, total } = await pendingMessages(input);
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
      const { pending, total } = await pendingMessages(input);
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
