// Accepted transactional requests of one account, sent together through the send engine: each
// request planned once (core/sending/plan.ts: its shared MIME, each message's parts spliced in),
// the resume from the ledger (core/sending/resume.ts), the per-message loop
// (core/sending/message-loop.ts: suppression, relay, ledger, heartbeats, cancellation), and the
// recording of what is not sent (core/sending/give-up.ts): requests whose record is gone or whose
// content cannot be built, and, when the workflow gives up or the batch is cancelled, the rest.
import { trackingSecret } from '../content/tracking/secret';
import { recordUnsent, type Unsent } from '../sending/give-up';
import { LedgerWriter, type SentBy } from '../sending/ledger';
import { sendMessages, type MessageLoopDeps, type OutgoingMessage, type SendControls, type SendLog } from '../sending/message-loop';
import { mailIdOf, planRequest, plannedMessage, unbuildableMessages, type PlannedMessage, type RequestPlan } from '../sending/plan';
import { resumeFromLedger } from '../sending/resume';
import type { SendRequestDoc, Store } from '../../adapters/store/store';
import type { QueuedSend, SendOutcome, SendRequestsInput } from '../../adapters/temporal/contracts';
import { nextTurn } from '../shared/next-turn';

export interface RequestSenderDeps extends MessageLoopDeps {
  /** Where tracking, online-version and unsubscribe links point (HERALD_PUBLIC_URL). */
  publicUrl: string;
}

/** How a sender sends a set of requests besides its controls. */
export interface SendOptions {
  /** Requests no attempt has touched before (queue entries never taken): the ledger has no row of theirs, so it is not read. */
  fresh?: ReadonlySet<string>;
  /** The Temporal run sending, stamped on every ledger row. */
  sentBy?: SentBy;
  /** The ledger writer to record with (a drain's, shared by its pages so their writes group). */
  ledger?: LedgerWriter;
}

/** One message still to send, with its request. */
interface PendingMessage extends OutgoingMessage { request: SendRequestDoc }

/** The requests of an attempt, planned, and what the ledger already holds of them. */
interface Work {
  requests: SendRequestDoc[];
  pending: PendingMessage[];
  /** Messages of requests whose content cannot be built, with the reason: recorded as failed. */
  unbuildable: Array<{ messages: PlannedMessage[]; reason: string }>;
  /** Messages the ledger shows as done (by an earlier attempt). */
  done: number;
  /** Messages of the readable requests. */
  total: number;
  /** Requests whose record is not in the store, or cannot even be read. */
  missing: QueuedSend[];
}

export function createRequestSender(deps: RequestSenderDeps) {
  const { store, mtaHost, publicUrl } = deps;

  async function loadWork(input: SendRequestsInput, log?: SendLog, fresh?: ReadonlySet<string>): Promise<Work> {
    const { account } = input;
    const stored = await store.sendRequests.find({ _id: { $in: input.requests.map((r) => r.requestId) }, account }).toArray();
    const found = new Set(stored.map((r) => r._id));
    const links = { publicUrl, secret: await trackingSecret(store) };
    // A request whose content cannot be built fails alone: the others of the attempt go on.
    const plans: Array<{ request: SendRequestDoc; plan: RequestPlan }> = [];
    const unbuildable: Work['unbuildable'] = [];
    // One request planned per turn, in the order read (../shared/next-turn.ts).
    for (const request of stored) {
      await nextTurn();
      try {
        plans.push({ request, plan: await planRequest(request, { mtaHost, links }) });
      } catch (error) {
        const reason = (error as Error).message;
        log?.error('a send request cannot be built: its messages fail', { requestId: request._id, error: reason });
        try {
          unbuildable.push({ messages: unbuildableMessages(request, mtaHost), reason });
        } catch {
          // not even its recipients can be read: reported like a missing record
        }
      }
    }
    const readable = new Set([...plans.map((p) => p.request._id), ...unbuildable.flatMap((u) => u.messages.map((m) => m.requestId))]);
    const mailIds = [...plans.flatMap(({ plan }) => plan.mailIds), ...unbuildable.flatMap((u) => u.messages.map((m) => m.mailId))];
    // A fresh request has no row yet: only the others' rows are looked up.
    const touched = [
      ...plans.flatMap(({ request, plan }) => (fresh?.has(request._id) ? [] : plan.mailIds)),
      ...unbuildable.flatMap((u) => u.messages.filter((m) => !fresh?.has(m.requestId)).map((m) => m.mailId)),
    ];
    const { done } = await resumeFromLedger(store, account, touched);
    // Only the messages still to send are built (rendered), and only when their turn comes.
    const pending = plans.flatMap(({ request, plan }) => plan.mailIds.flatMap((mailId, index) => (
      done.has(mailId) ? [] : [{
        message: plan.message(index), sender: plan.sender, request,
        // Herald's own mail: sent whatever the suppression list says, routed as `system`.
        ...(request.purpose === 'optin-confirmation' ? { ignoreSuppression: true, stream: 'system' as const } : {}),
      }]
    )));
    return {
      requests: plans.map((p) => p.request), pending, done: done.size, total: mailIds.length,
      unbuildable: unbuildable.map(({ messages, reason }) => ({ messages: messages.filter((m) => !done.has(m.mailId)), reason })),
      missing: input.requests.filter((r) => !found.has(r.requestId) || !readable.has(r.requestId)),
    };
  }

  /**
   * What cannot be sent whatever happens: a request whose record is not in the store (its
   * acceptance failed after Temporal took it, or the store lost it) and messages whose content
   * cannot be built. Returns how many messages that is.
   */
  async function recordUnsendable(ledger: LedgerWriter, account: string, work: Work): Promise<number> {
    const counts = await Promise.all([
      recordUnsent(ledger, work.missing.map((queued) => missingRequestMessage(account, queued, mtaHost)), { why: 'request-missing' }),
      ...work.unbuildable.map(({ messages, reason }) => recordUnsent(ledger, messages, { why: 'unbuildable', reason })),
    ]);
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Every message the ledger does not show as done ends as `unsent` says, with its event: none is sent. */
  async function recordAllUnsent(input: SendRequestsInput, unsent: Unsent, log?: SendLog): Promise<SendOutcome> {
    const work = await loadWork(input, log);
    const ledger = new LedgerWriter(store);
    const [unsendable] = await Promise.all([
      recordUnsendable(ledger, input.account, work),
      recordUnsent(ledger, work.pending.map(({ message }) => message), unsent),
    ]);
    return { sent: work.done, failed: work.pending.length + unsendable, deferred: [] };
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
    async send(input: SendRequestsInput, controls: SendControls, options: SendOptions = {}): Promise<SendOutcome> {
      const { account } = input;
      const work = await loadWork(input, controls.log, options.fresh);
      const ledger = options.ledger ?? new LedgerWriter(store, options.sentBy);
      const unsendable = await recordUnsendable(ledger, account, work);
      const cancelled = new Set(work.requests.filter((r) => r.cancelledAt).map((r) => r._id));
      const ids = work.requests.map((r) => r._id);
      const tally = await sendMessages(deps, {
        ...controls,
        account,
        messages: work.pending,
        ledger,
        stream: 'transactional',
        // A request whose batch was cancelled gets its unsent messages dropped.
        isDropped: (item) => cancelled.has(item.request._id),
        beat: (done) => controls.heartbeat({ done: work.done + done, total: work.total }),
        poll: async () => {
          (await cancelledAmong(store, account, ids)).forEach((id) => cancelled.add(id));
        },
      });
      return {
        sent: work.done + tally.sent,
        failed: unsendable + tally.failed + tally.dropped,
        deferred: [...new Set(tally.deferred.map((item) => item.request._id))],
      };
    },

    /** After retries ran out: every unsent message gets a soft bounce (`reason`), so none is silently lost. */
    giveUp(input: SendRequestsInput, reason: string, log?: SendLog): Promise<SendOutcome> {
      return recordAllUnsent(input, { why: 'gave-up', reason }, log);
    },

    /** Requests cancelled before they were sent: every unsent message is dropped (an event each), none is sent. */
    cancel(input: SendRequestsInput, log?: SendLog): Promise<SendOutcome> {
      return recordAllUnsent(input, { why: 'cancelled' }, log);
    },
  };
}

/** The requests (of `ids`) whose batch was cancelled through the API. */
async function cancelledAmong(store: Store, account: string, ids: string[]): Promise<string[]> {
  const found = await store.sendRequests.find({ _id: { $in: ids }, account, cancelledAt: { $exists: true } }).project<{ _id: string }>({ _id: 1 }).toArray();
  return found.map((r) => r._id);
}

/** A request whose record is gone, as one message: enough to record its soft bounce (no address, nothing to build). */
function missingRequestMessage(account: string, queued: QueuedSend, mtaHost: string): PlannedMessage {
  const { requestId, batchId } = queued;
  return plannedMessage({ account, requestId, batchId, mailId: mailIdOf(account, requestId, 0), email: '' }, mtaHost, () => Buffer.alloc(0));
}
