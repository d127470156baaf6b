// One delivery pass of a webhook endpoint (the deliverWebhookEvents activity): reads the account's
// stored events after the endpoint's cursor, in _id order and in pages, and POSTs them as JSON
// arrays of many events, a few requests in flight, moving the cursor after each answered request
// (in order). It keeps going for up to `passMs` (polling when there is nothing new), so the
// workflow's history grows by one activity per pass rather than one per request.
//
// Pages. A backlog is read in pages that grow from 1,000 to `pageSize` (20,000) events while
// they come back full (fewer round trips; the embedded store walks the events in _id order from
// the cursor and stops at the page's size, infra/store/IdOrder.java). A page is
// read (as raw BSON) while the previous one is turned into JSON and posted. Idle, a pass reads
// only when the store's event count changed (core/webhooks/new-events-watch.ts).
//
// The settle window. Event _ids are made by several processes (API, SMTP, workers) and are not
// stored in _id order: core/tracking/event-writer.ts and the send ledger give an event its _id just before
// a write that takes milliseconds, rarely seconds. A reader at the tip could move its cursor past
// an _id whose write has not landed yet, and never see that event. So a pass reads only events
// whose _id (its time, to the second) is older than `settleMs` (5 s). Events are delivered 5-8 s
// after they happen. A write that lands later than that anyway (a stalled store or worker) is
// recorded by its writer, and the pass delivers those events once per window (./late-events.ts).
//
// Each answered POST gets an entry in the endpoint's deliveries log (./deliveries.ts): a page's
// delivered requests in one insert once the page is done, a failed one at once (with its retry).
//
// A failed POST (non-2xx, timeout, no connection) puts its events in a retry batch
// (core/webhooks/retries.ts) and the pass returns soon after, so the workflow schedules the retry
// in a durable timer while the next pass goes on with newer events: nothing waits for the minute.
import { LRUCache } from 'lru-cache';
import { ObjectId } from 'mongodb';
import { metrics } from '../../adapters/metrics/registry';
import type { Store, WebhookDoc, WebhookLogDoc } from '../../adapters/store/store';
import { WEBHOOK_RETRY_DELAY_MS, type WebhookPassInput, type WebhookPassResult } from '../../adapters/temporal/contracts';
import { eventJsonFromBson, type EventJson } from './bson-json';
import { logEntry } from './deliveries';
import { splitIntoRequests, type RequestBatch } from './payload';
import type { Poster, PostResult } from './post';
import { acquireRequests } from './rate-limit';
import { LATE_RECORDS_PER_CALL, lateEventsOf, markLateHandled } from './late-events';
import { NewEventsWatch } from './new-events-watch';
import { recordFailure } from './retries';

export interface WebhookTuning {
  /** Events per request at most (the receiver must accept one or many). */
  maxEventsPerRequest: number;
  /** Body size a request stays under (an event bigger than this goes alone). */
  maxBytesPerRequest: number;
  /** Events read per store query at most (pages grow to it while a backlog lasts). */
  pageSize: number;
  /** Only events whose _id is older than this are read (see above); at least MIN_SETTLE_MS (core/tracking/late-writes.ts), the lateness writers record. */
  settleMs: number;
  /** Requests of one endpoint in flight at once. */
  concurrency: number;
  /** How often an idle pass looks for new events (a look costs ~1 ms; a read happens only when there may be some). */
  idlePollMs: number;
  /** The wait before a failed POST's one retry: the spec's minute (a test shortens it to spare the suite a minute of real time). */
  retryDelayMs: number;
}

export const DEFAULT_TUNING: WebhookTuning = {
  maxEventsPerRequest: 500, maxBytesPerRequest: 1_000_000, pageSize: 20_000, settleMs: 5000, concurrency: 4, idlePollMs: 1000, retryDelayMs: WEBHOOK_RETRY_DELAY_MS,
};

/** The first page of a run of reads; each full page makes the next one 4 times bigger, up to pageSize. */
const FIRST_PAGE = 1000;
const READ_BATCH = 2000;
/** A cursor moved only by skipping (events of other types, or none) is written at most this often. */
const SKIP_PERSIST_MS = 30_000;

export interface PassDeps {
  store: Store;
  poster: Poster;
  tuning: WebhookTuning;
  /** Tells Temporal the pass is alive. */
  heartbeat(): void;
  /** True once the pass must stop (cancelled, or its workflow is gone). */
  stopped(): boolean;
}

/** Events of seconds before this _id are settled: every write of them has landed. */
export function settleBound(nowMs: number, settleMs: number): ObjectId {
  return ObjectId.createFromTime(Math.floor((nowMs - settleMs) / 1000));
}

/** The greatest _id below `bound` (of the second before it): a cursor there has read everything below. */
function justBelow(bound: ObjectId): ObjectId {
  const seconds = parseInt(bound.toHexString().slice(0, 8), 16) - 1;
  return new ObjectId(`${seconds.toString(16).padStart(8, '0')}ffffffffffffffff`);
}

interface InFlight { batch: RequestBatch; answer: Promise<PostResult>; settled: boolean }

/**
 * When each endpoint's passes in this process next look for late events: once per settle window
 * across passes, however short they are (a workflow may run one read per pass). An LRU: a worker
 * serves a bounded number of endpoints at a time.
 */
const lateCheckAt = new LRUCache<string, number>({ max: 10_000 });

const after = (a: ObjectId, b: ObjectId) => a.toHexString() > b.toHexString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads the endpoint's next events: after `from`, below the settle bound, of its types, in _id order. */
export async function readEventPage(store: Store, account: string, from: ObjectId, types: string[] | null, settleMs: number, limit: number) {
  const bound = settleBound(Date.now(), settleMs);
  const filter = { account, _id: { $gt: from, $lt: bound }, ...(types ? { track_type: { $in: types } } : {}) };
  // Raw BSON, turned into the body's JSON by the caller (eventJsonFromBson) while the next page is read.
  // In batches of 2,000: the embedded store holds writes back while it answers a read, so the
  // limiter's grants and cursor writes get in between batches instead of waiting for the page.
  const raw = await store.events.find(filter, { raw: true }).sort({ _id: 1 }).limit(limit).batchSize(Math.min(limit, READ_BATCH)).toArray();
  return { raw: raw as unknown as Buffer[], bound, limit };
}

export async function deliveryPass(deps: PassDeps, input: WebhookPassInput): Promise<WebhookPassResult> {
  const { store, poster, tuning } = deps;
  const deadline = Date.now() + input.passMs;
  const endpointKey = { _id: `${input.account}:${input.endpointId}`, account: input.account };
  const retries: Array<{ retryId: string; at: number }> = [];
  const result = (state: WebhookPassResult['state']): WebhookPassResult => ({
    state, retries: retries.map((r) => ({ retryId: r.retryId, delayMs: Math.max(0, tuning.retryDelayMs - (Date.now() - r.at)) })),
  });

  let endpoint = await store.webhooks.findOne(endpointKey);
  if (!endpoint) return result('gone');
  if (!endpoint.enabled) return result('disabled');
  /** The cursor as stored: every write is conditional on it, so two passes of one endpoint never both move it. */
  let cursor = endpoint.cursor;
  let readFrom = cursor;
  let lastWrite = Date.now();
  let superseded = false;
  /** The last read got everything below its bound: the next waits for new events to settle. */
  let caughtUp = false;
  let limit = Math.min(FIRST_PAGE, tuning.pageSize);
  const watch = new NewEventsWatch(store, tuning.settleMs);

  // Cursor writes run beside the requests, newest position only: answers that come while a write
  // is in flight are covered by the next one (one write per answered request at most).
  let wanted = cursor;
  let writing: Promise<void> | undefined;
  const writeCursor = async () => {
    try {
      while (!superseded && after(wanted, cursor)) {
        const to = wanted;
        const { matchedCount } = await store.webhooks.updateOne({ ...endpointKey, cursor }, { $set: { cursor: to } });
        if (matchedCount === 0) superseded = true; // re-enabled (cursor reset), deleted, or another pass: stop here
        else cursor = to;
        lastWrite = Date.now();
      }
    } finally {
      writing = undefined;
    }
  };
  /** Asks for the cursor to move to `to`; the promise settles once it is written (or found superseded). */
  const moveCursor = (to: ObjectId): Promise<void> => {
    if (after(to, wanted)) wanted = to;
    writing ??= writeCursor();
    return writing;
  };

  /** Sends the page's requests in order; false when it stopped early (a failure, or superseded). */
  const sendPage = async (target: WebhookDoc, events: EventJson[]): Promise<boolean> => {
    const batches = splitIntoRequests(events, tuning.maxEventsPerRequest, tuning.maxBytesPerRequest);
    const inFlight: InFlight[] = [];
    let next = 0;
    let failed = false;
    /** The log entries of the delivered requests, written together once the page is done (a failure's is written at once). */
    const delivered: WebhookLogDoc[] = [];
    while (next < batches.length || inFlight.length > 0) {
      const room = Math.min(tuning.concurrency - inFlight.length, batches.length - next);
      if (room > 0 && !failed && !superseded && !deps.stopped()) {
        const granted = await acquireRequests(store, target.url, room, deps.stopped);
        for (const batch of batches.slice(next, next + granted)) {
          const request: InFlight = { batch, answer: poster.post(target, batch.body, { 'Herald-Attempt': '1' }), settled: false };
          void request.answer.then(() => { request.settled = true; });
          inFlight.push(request);
        }
        next += granted;
      }
      if (inFlight.length === 0) break;
      // The oldest answer, and every later one already in: the next grant is then for all the room they leave.
      do {
        const head = inFlight.shift()!;
        const answer = await head.answer;
        if (answer.outcome === 'delivered') {
          metrics.webhookEventsDelivered.inc(head.batch.ids.length);
          delivered.push(logEntry(target, head.batch.trackIds, { outcome: 'delivered', attempt: 1, status: answer.status, error: null }));
        } else {
          retries.push({ retryId: await recordFailure(store, target, head.batch, answer, tuning.retryDelayMs), at: Date.now() });
          failed = true;
        }
        moveCursor(head.batch.last).catch(() => undefined); // awaited below, where a store error surfaces
      } while (inFlight[0]?.settled);
      deps.heartbeat();
    }
    if (delivered.length > 0) await store.webhookLog.insertMany(delivered, { ordered: false });
    await moveCursor(cursor);
    return next === batches.length && !failed && !superseded;
  };

  let prefetch: ReturnType<typeof readEventPage> | undefined;
  let state: WebhookPassResult['state'] = 'active';
  let first = true;
  while (!deps.stopped()) {
    deps.heartbeat();
    // Read before each page: a change (secret, URL, types, disabled) applies to every page read after it.
    if (!first) {
      const reloaded = await store.webhooks.findOne(endpointKey);
      if (!reloaded) return result('gone');
      if (!reloaded.enabled) return result('disabled');
      if (!reloaded.cursor.equals(cursor)) break; // someone else moved it: the workflow runs a fresh pass
      endpoint = reloaded;
    }
    first = false;
    // Late events (see ./late-events.ts), looked for once per settle window while no read is in flight.
    if (!prefetch && Date.now() >= (lateCheckAt.get(endpointKey._id) ?? 0)) {
      const late = await lateEventsOf(store, endpoint, readFrom, tuning.settleMs);
      lateCheckAt.set(endpointKey._id, late?.recordIds.length === LATE_RECORDS_PER_CALL ? 0 : Date.now() + tuning.settleMs);
      if (late) {
        if (late.events.length > 0 && !(await sendPage(endpoint, late.events))) break;
        await markLateHandled(store, endpoint, late.recordIds);
      }
    }
    if (caughtUp && !(await watch.readDue())) {
      if (Date.now() >= deadline) {
        state = 'idle';
        break;
      }
      if (Date.now() - lastWrite > SKIP_PERSIST_MS) await moveCursor(readFrom);
      await sleep(tuning.idlePollMs);
      continue;
    }
    if (!prefetch) await watch.reading();
    const page = await (prefetch ?? readEventPage(store, input.account, readFrom, endpoint.events, tuning.settleMs, limit));
    prefetch = undefined;
    const full = page.raw.length >= page.limit;
    limit = full ? Math.min(page.limit * 4, tuning.pageSize) : Math.min(FIRST_PAGE, tuning.pageSize);
    caughtUp = !full;
    if (page.raw.length > 0) {
      const last = eventJsonFromBson(page.raw[page.raw.length - 1]).id;
      // The next page is read while this one is turned into JSON and posted.
      if (full && Date.now() < deadline) {
        await watch.reading();
        prefetch = readEventPage(store, input.account, last, endpoint.events, tuning.settleMs, limit);
        prefetch.catch(() => undefined); // awaited later, or dropped when the pass ends first
      }
      if (!(await sendPage(endpoint, page.raw.map(eventJsonFromBson)))) break;
      readFrom = last;
    }
    // A short page read everything below its bound: later reads start there.
    if (!full && after(justBelow(page.bound), readFrom)) readFrom = justBelow(page.bound);
    if (Date.now() >= deadline) {
      state = caughtUp ? 'idle' : 'active';
      break;
    }
    if (caughtUp) await sleep(tuning.idlePollMs);
  }
  await moveCursor(readFrom);
  return result(state);
}
