// The send engine's per-message loop, shared by every sender (transactional requests, campaign
// pages, automation emails): suppression (a dropped event), the relay send with DKIM and the VERP
// return path, the relay's answers (sent, hard bounce, deferred, relay trouble), the ledger row of
// each outcome (grouped writes: ./ledger.ts), heartbeats and cancellation. Messages go out
// concurrently over the pooled relay transport, and each outcome is in the ledger before its
// sender takes the next message, so at most SEND_CONCURRENCY messages are between the relay's
// answer and the ledger at any moment: what a crash can make a resend send twice, each time with
// the same Message-ID. Free of Temporal: the activity supplies the heartbeat (`beat`), the
// cancellation (`signal`) and the logger, and turns SendingStopped into its cancellation.
import { returnPathOf } from '../bounces/return-path';
import { dkimSigningFor } from './dkim';
import { buildEvent } from '../tracking/events';
import { LedgerWriter, ledgerRow, type SentBy } from './ledger';
import type { EventDoc, LedgerFields, Store } from '../../adapters/store/store';
import { suppress, suppressedAmong } from './suppressions';
import { trackingSecret } from '../content/tracking/secret';
import type { PlannedMessage } from './plan';
import { unsentRow } from './give-up';
import { classifyRelayFailure, type RelayMessage, type RelaySender } from '../../adapters/relay/transport';
import type { Stream } from '../../adapters/relay/routes';
import { nextTurn } from '../shared/next-turn';
import type { SendPriority } from './priority';

/**
 * Messages of one attempt handed to the transport at once; its pool spreads them over its
 * connections. Also the crash bound: what a killed worker's resend may send twice. 100, not 50:
 * campaign-send 1,658 against 1,472-1,486 recipients/s and 0.85 against 0.95 ms of CPU per message
 * (the ledger's grouped writes take twice as many rows each); 200 took the worker past 300 MB.
 */
export const SEND_CONCURRENCY = 100;
/** How often a sending attempt tells Temporal it is alive, whatever a single relay call takes. */
const HEARTBEAT_EVERY_MS = 2000;
/** How often a sending attempt looks in the store for a cancellation (its `poll`). */
const POLL_EVERY_MS = 1000;

/** One message to send, with the envelope sender whose domain DKIM signs for. */
export interface OutgoingMessage {
  message: PlannedMessage;
  sender: string;
  /** Sent whatever the suppression list says (Herald's own opt-in confirmation). */
  ignoreSuppression?: boolean;
  /** Its stream when not the run's (Herald's own mail among a page of requests: `system`). */
  stream?: Stream;
}

/** What the loop sends with: the store (ledger, suppressions, DKIM keys) and the relay. */
export interface MessageLoopDeps {
  store: Store;
  transport: RelaySender;
  /** Host name in Message-IDs and the events' `mta` field. */
  mtaHost: string;
  /** The domain of each message's return path. */
  bounceDomain: string;
  /** Shared by the worker's senders: bulk messages wait while urgent work runs (./priority.ts). */
  priority?: SendPriority;
}

/** Where the engine reports what an operator should see (the activity's logger). */
export interface SendLog {
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}

/** What the loop learns from the Temporal activity that runs it. */
export interface LoopControls {
  /** Aborted when the attempt is cancelled (or its worker lost touch with Temporal): no more messages are taken. */
  signal?: AbortSignal;
  /** Where relay trouble is reported. */
  log?: SendLog;
}

/** What a sender's entry point takes from its activity: the loop's controls and the activity's heartbeat. */
export interface SendControls extends LoopControls {
  heartbeat(details?: unknown): void;
}

/** The loop stopped taking messages because its `signal` was aborted; what it sent is in the ledger. */
export class SendingStopped extends Error {
  constructor(reason: unknown) {
    super(`sending stopped: ${String(reason ?? 'cancelled')}`);
    this.name = 'SendingStopped';
  }
}

/** What a sender asks of the loop besides the messages, all optional but `beat`. */
export interface SendRun<T extends OutgoingMessage> extends LoopControls {
  account: string;
  messages: T[];
  /** True: this message is dropped (`cancelled`) instead of sent (its transactional batch was cancelled). */
  isDropped?(item: T): boolean;
  /** True: take no more messages (what is left stays unsent, with no ledger row): a stopped campaign. */
  isHalted?(): boolean;
  /** Called at the start and every 2 s with the count of outcomes so far: heartbeats, task progress. A throw ends the attempt. */
  beat(done: number): void | Promise<void>;
  /** Called every second while sending: looks in the store for a cancellation (its answer feeds isDropped/isHalted). */
  poll?(): Promise<void>;
  /** The Temporal run sending, stamped on each ledger row (transactional requests: the batches API names it). */
  sentBy?: SentBy;
  /** What the messages are, for the relays' routing; a campaign's wait behind the others' (in the worker and at a relay). */
  stream: Stream;
  /** The ledger writer to record with, shared by the sender's concurrent sets so their writes group; else one of the loop's own. */
  ledger?: LedgerWriter;
}

/** What the loop did: counts of outcomes, and the messages the relay deferred (4xx: no row, to be sent again). */
export interface SendTally<T> { sent: number; failed: number; dropped: number; deferred: T[]; halted: boolean }

/**
 * Sends the messages (none of which the ledger shows as done), SEND_CONCURRENCY at a time. A
 * recipient the relay defers (4xx) is returned in `deferred` while the others go on; the relay's
 * own trouble (connection, authentication) or a ledger write that failed ends the attempt with
 * that error once the messages in flight are recorded, to be retried. The loop stops taking
 * messages once `signal` is aborted (then it throws SendingStopped) or `isHalted` says so.
 */
export async function sendMessages<T extends OutgoingMessage>(deps: MessageLoopDeps, run: SendRun<T>): Promise<SendTally<T>> {
  const { store, transport, bounceDomain } = deps;
  const { account, messages, signal } = run;
  const ledger = run.ledger ?? new LedgerWriter(store, run.sentBy);
  const tally: SendTally<T> = { sent: 0, failed: 0, dropped: 0, deferred: [], halted: false };
  // Addresses on the suppression list get no mail: one look-up for the whole attempt.
  const checked = messages.filter((item) => !item.ignoreSuppression);
  const suppressed = await suppressedAmong(store, account, checked.flatMap(({ message }) => [message.email, ...message.copiesTo]));
  const isSuppressed = (item: T, email: string) => !item.ignoreSuppression && suppressed.has(email.toLowerCase());
  const signing = new Map<string, Promise<RelayMessage['dkim']>>();
  const dkimFor = (sender: string) => {
    if (!signing.has(sender)) signing.set(sender, dkimSigningFor(store, account, sender));
    return signing.get(sender)!;
  };
  const returnPathKey = await trackingSecret(store); // signs each message's return path
  const record = (message: PlannedMessage, status: LedgerFields['status'], response: string, event: EventDoc) => (
    ledger.record(ledgerRow(message, status, response, event))
  );

  let stop: unknown;
  let next = 0;
  const sendOne = async (item: T) => {
    const { message } = item;
    const at = new Date();
    message.subject.sent_timestamp = at;
    const dropped = run.isDropped?.(item) ? 'cancelled' : isSuppressed(item, message.email) ? 'suppressed' : undefined;
    if (dropped) {
      await ledger.record(unsentRow(message, { why: dropped }, at));
      tally.dropped += 1;
      return;
    }
    // A suppressed cc or bcc only leaves the envelope: the copy still shows whom it was addressed to.
    const to = [message.email, ...message.copiesTo.filter((email) => !isSuppressed(item, email))];
    let response: string;
    if (run.stream === 'campaign') await deps.priority?.bulkTurn();
    await nextTurn(); // rendering is the loop's CPU: one message per turn (../shared/next-turn.ts)
    try {
      // The envelope sender is the message's own return path, so its bounces name it
      // (core/bounces); DKIM still signs for the sender's domain.
      const from = returnPathOf(message.mailId, returnPathKey, bounceDomain);
      const route = { stream: item.stream ?? run.stream, account, sender: item.sender, recipient: message.email, mailId: message.mailId };
      const info = await transport.sendMail({ envelope: { from, to }, raw: message.raw(), dkim: await dkimFor(item.sender), route });
      response = String(info.response ?? '');
    } catch (error) {
      const failure = classifyRelayFailure(error);
      if (failure === 'relay') {
        run.log?.warn('relay trouble: the attempt ends and is retried', { requestId: message.requestId, error: (error as Error).message });
        stop ??= error;
        return;
      }
      if (failure === 'deferred') {
        tally.deferred.push(item);
        return;
      }
      const reason = (error as Error).message;
      const bounce = buildEvent('track.mail.bounced', message.subject, at, 'relay-rejected', {
        bounce_type: 'hard',
        message: reason.split('\n').slice(0, 3).join('\n'),
      });
      await record(message, 'failed', reason, bounce);
      await suppress(store, account, message.email, 'bounced', 'relay'); // no more mail to an address that does not exist
      tally.failed += 1;
      return;
    }
    await record(message, 'sent', response, buildEvent('track.mail.sent', message.subject, at, 'sent'));
    tally.sent += 1;
  };
  const sender = async () => {
    while (stop === undefined && next < messages.length) {
      if (signal?.aborted) {
        stop = new SendingStopped(signal.reason);
        break;
      }
      if (run.isHalted?.()) {
        tally.halted = true;
        break;
      }
      try {
        await sendOne(messages[next++]);
      } catch (error) {
        stop ??= error; // the ledger could not be written: this attempt ends, its retry resends from the ledger
      }
    }
  };

  const done = () => tally.sent + tally.failed + tally.dropped;
  const beat = () => {
    try {
      Promise.resolve(run.beat(done())).catch((error: unknown) => { stop ??= error; });
    } catch (error) {
      stop ??= error;
    }
  };
  // Heartbeats on a timer: a slow relay call must not look like a dead worker.
  const beats = setInterval(beat, HEARTBEAT_EVERY_MS);
  const polls = run.poll && setInterval(() => { run.poll!().catch(() => undefined); }, POLL_EVERY_MS);
  try {
    await run.beat(0);
    await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, messages.length) }, sender));
  } finally {
    clearInterval(beats);
    if (polls) clearInterval(polls);
  }
  if (stop !== undefined) throw stop;
  return tally;
}
