import {
  condition, continueAsNew, defineSignal, setHandler, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import {
  searchAttributeKeys, SEND_SIGNAL, type AccountSenderInput, type DeferredSend, type QueuedSend,
} from '../adapters/temporal/contracts';
import { delayBeforeNextSend, KEPT_DEFERRING } from '../core/sending/deferral';
import { recordUnsentAsFailed, sendAttempt } from './send-attempts';

/** Requests accepted together come in one signal. */
const sendSignal = defineSignal<[QueuedSend[]]>(SEND_SIGNAL);

/** Send attempts (activities) of the account running at once. */
const MAX_ATTEMPTS_IN_FLIGHT = 3;
/** Requests one attempt takes (all that waited, up to this). */
const MAX_REQUESTS_PER_ATTEMPT = 100;
/** With nothing to do for this long the run ends; the next send starts a new one. */
const IDLE_MS = 5 * 60_000;
// A run continues as new well before Temporal's limits (51,200 events, 10,000 signals, 2 MB
// payloads): these keep its history, its signals and what it carries over small.
const MAX_HISTORY_EVENTS = 10_000;
const MAX_SIGNALS = 5_000;
/** Room kept in a search attribute value for the payload's own encoding (metadata, JSON brackets). */
const SEARCH_ATTRIBUTE_OVERHEAD = 200;

/**
 * The account's gathering workflow. The API records each accepted request and signals it here
 * (signalWithStart), at the rate Temporal takes signals; requests that arrive together are sent
 * together by one activity, a few attempts at a time. A request whose relay deferred recipients
 * comes back after a backoff; one deferred too often has its unsent messages soft-bounced.
 * Each run lists the batch ids it sent in the `HeraldBatches` search attribute, so an operator
 * finds a request's run (and in it, the attempt whose summary names the batch) in the Temporal UI.
 */
export async function AccountSender(input: AccountSenderInput): Promise<void> {
  const { account } = input;
  const queued: QueuedSend[] = [...(input.queued ?? [])];
  const deferred: DeferredSend[] = [...(input.deferred ?? [])];
  const attempts = new Map<string, number>(deferred.map((d) => [d.requestId, d.attempt]));
  const batches = new Set<string>();
  // The run's batch ids are one search attribute value, which the server caps (2 KB by default).
  const searchableBudget = (input.searchAttributeLimit ?? 2048) - SEARCH_ATTRIBUTE_OVERHEAD;
  let searchableBytes = 0;
  /** Set when the next request's batch id does not fit the run's list: time to continue as new. */
  let listFull = false;
  let signals = 0;
  let inFlight = 0;
  /** Bumped when a finished attempt deferred requests: the wait below recomputes its timeout. */
  let deferrals = 0;
  let crashed: unknown;
  setHandler(sendSignal, (requests) => {
    queued.push(...requests);
    signals += 1;
  });

  const mustContinue = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > MAX_HISTORY_EVENTS
    || signals > MAX_SIGNALS || listFull;

  const send = async (requests: QueuedSend[], backlog: number) => {
    const again = new Set(await sendAttempt(account, requests, backlog));
    const now = Date.now();
    for (const request of requests.filter((r) => again.has(r.requestId))) {
      const attempt = (attempts.get(request.requestId) ?? 0) + 1;
      attempts.set(request.requestId, attempt);
      const delay = delayBeforeNextSend(attempt);
      if (delay === null) {
        attempts.delete(request.requestId);
        await recordUnsentAsFailed({ account, requests: [request], reason: KEPT_DEFERRING });
      } else {
        deferred.push({ ...request, attempt, dueAt: now + delay });
        deferrals += 1;
      }
    }
    for (const request of requests.filter((r) => !again.has(r.requestId))) attempts.delete(request.requestId);
  };

  /** The next attempt's requests: those waiting longest, as many as the run's searchable list has room for. */
  const takeAttempt = (): QueuedSend[] => {
    let taken = 0;
    let added = false;
    while (taken < queued.length && taken < MAX_REQUESTS_PER_ATTEMPT) {
      const { batchId } = queued[taken];
      if (!batches.has(batchId)) {
        const cost = JSON.stringify(batchId).length + 1;
        if (searchableBytes + cost > searchableBudget) {
          listFull = true;
          break;
        }
        batches.add(batchId);
        searchableBytes += cost;
        added = true;
      }
      taken += 1;
    }
    if (added) upsertSearchAttributes([{ key: searchAttributeKeys.batches, value: [...batches] }]);
    return queued.splice(0, taken);
  };

  for (;;) {
    if (crashed !== undefined) throw crashed; // a bug or a cancellation: the run fails where the operator sees it
    // Deferred requests whose time came join the queue.
    const now = Date.now();
    for (let i = deferred.length - 1; i >= 0; i -= 1) {
      if (deferred[i].dueAt <= now) queued.push(...deferred.splice(i, 1));
    }
    if (mustContinue()) {
      await condition(() => inFlight === 0);
      await continueAsNew<typeof AccountSender>({ account, searchAttributeLimit: input.searchAttributeLimit, queued, deferred });
    }
    const requests = queued.length > 0 && inFlight < MAX_ATTEMPTS_IN_FLIGHT ? takeAttempt() : [];
    if (requests.length > 0) {
      inFlight += 1;
      void send(requests, queued.length + deferred.length).catch((error: unknown) => { crashed ??= error; }).finally(() => { inFlight -= 1; });
      continue;
    }
    const nextDue = Math.min(...deferred.map((d) => d.dueAt));
    const timeout = Number.isFinite(nextDue) ? Math.max(nextDue - Date.now(), 1) : IDLE_MS;
    const seen = deferrals;
    const woken = await condition(
      () => (queued.length > 0 && inFlight < MAX_ATTEMPTS_IN_FLIGHT) || deferrals !== seen || crashed !== undefined || mustContinue(), timeout,
    );
    if (!woken && queued.length === 0 && deferred.length === 0 && inFlight === 0) return;
  }
}
