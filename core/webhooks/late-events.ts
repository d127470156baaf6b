// The late events of an endpoint: events whose write landed after the settle window, recorded by
// their writers (core/tracking/late-writes.ts). The delivery pass may have read past their _ids
// before they were there, so now and then (and never while a read of newer events is in flight)
// it asks here for those at or below the position it has read through: those above it are still
// ahead of its reads, which see them, since a record is written only once its events are stored.
// An event delivered after all (its write landed before the pass got there) is in the deliveries
// log, and is left out: what remains is what the endpoint never got.
import { ObjectId } from 'mongodb';
import type { Store, WebhookDoc } from '../../adapters/store/store';
import { readPastFrom } from '../tracking/late-writes';
import { eventJsonFromBson, type EventJson } from './bson-json';
import { cursorFromNow } from './endpoints';

/** Records looked at per call (each names up to one write's events: a few thousand at most). */
export const LATE_RECORDS_PER_CALL = 20;
/** Log entries are looked for from this long before the earliest event's _id (clocks of different hosts). */
const CLOCK_MARGIN_MS = 60_000;
/** Records older than this are removed by the sweeper (those of endpoints disabled or stopped meanwhile). */
export const LATE_RECORDS_KEEP_MS = 86_400_000;
/**
 * Records of an account with no enabled endpoint are removed by the sweeper once this old: no pass
 * will take them, and an endpoint enabled since wants none of them (its events start after it).
 */
export const UNWANTED_LATE_RECORDS_MS = 10 * 60_000;

export interface LateEvents {
  /** The records looked at: handled once these events are delivered (or put in a retry batch). */
  recordIds: ObjectId[];
  /** Their events of the endpoint's types that it read past and never got, in _id order. */
  events: EventJson[];
}

const hex = (id: ObjectId) => id.toHexString();

/**
 * The endpoint's late events: at or below `readThrough`, and late for a pass of `settleMs` (a
 * record names what was late for the smallest window); undefined when no record waits for it.
 */
export async function lateEventsOf(store: Store, endpoint: WebhookDoc, readThrough: ObjectId, settleMs: number): Promise<LateEvents | undefined> {
  const records = await store.lateEvents
    .find({ account: endpoint.account, handledBy: { $ne: endpoint.id } })
    .limit(LATE_RECORDS_PER_CALL)
    .toArray();
  if (records.length === 0) return undefined;
  // Events before the endpoint existed were never its to deliver.
  const [from, through] = [hex(cursorFromNow(endpoint.created.getTime())), hex(readThrough)];
  const ids = records.flatMap((record) => record.eventIds.filter((id) =>
    hex(id) >= from && hex(id) <= through && readPastFrom(id, settleMs) <= record.ackedAt.getTime()));
  const raw = ids.length === 0 ? [] : await store.events
    .find({ account: endpoint.account, _id: { $in: ids }, ...(endpoint.events ? { track_type: { $in: endpoint.events } } : {}) }, { raw: true })
    .sort({ _id: 1 })
    .toArray();
  const events = (raw as unknown as Buffer[]).map(eventJsonFromBson);
  const logged = await loggedTrackIds(store, endpoint, events);
  return { recordIds: records.map((record) => record._id), events: events.filter((event) => !logged.has(event.trackId)) };
}

/** The track_ids among these events that the endpoint's deliveries log names (delivered, failed, discarded). */
async function loggedTrackIds(store: Store, endpoint: WebhookDoc, events: EventJson[]): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  // An event's log entry is made after it was stored: the walk starts at the earliest event's second.
  const since = ObjectId.createFromTime(Math.floor((events[0].id.getTimestamp().getTime() - CLOCK_MARGIN_MS) / 1000));
  const entries = await store.webhookLog
    .find({ account: endpoint.account, endpointId: endpoint.id, _id: { $gte: since }, trackIds: { $in: events.map((event) => event.trackId) } })
    .project<{ trackIds: string[] }>({ trackIds: 1 })
    .sort({ _id: 1 })
    .limit(1_000_000) // a limit and the _id sort let the embedded store walk from `since` (infra/store/IdOrder.java)
    .toArray();
  return new Set(entries.flatMap((entry) => entry.trackIds));
}

/**
 * The records are dealt with for this endpoint; those every enabled endpoint of the account has
 * dealt with are removed (an endpoint enabled later wants none of them: its events start at its
 * own creation or re-enabling), so each pass's look reads only records still wanted.
 */
export async function markLateHandled(store: Store, endpoint: WebhookDoc, recordIds: ObjectId[]): Promise<void> {
  const account = endpoint.account;
  await store.lateEvents.updateMany({ _id: { $in: recordIds }, account }, { $addToSet: { handledBy: endpoint.id } });
  const enabled = await store.webhooks.find({ account, enabled: true }).project<{ id: number }>({ id: 1 }).toArray();
  await store.lateEvents.deleteMany({ _id: { $in: recordIds }, account, handledBy: { $all: [endpoint.id, ...enabled.map((e) => e.id)] } });
}

/**
 * The sweeper's: removes the records of more than a day ago, and those of accounts without an
 * enabled endpoint (`accountsWithEndpoints` are those with one) older than UNWANTED_LATE_RECORDS_MS,
 * which writers record whether or not anyone delivers the account's events.
 */
export async function removeUnwantedLateRecords(store: Store, accountsWithEndpoints: string[]): Promise<number> {
  const before = (ms: number) => ObjectId.createFromTime(Math.floor((Date.now() - ms) / 1000));
  const { deletedCount } = await store.lateEvents.deleteMany({
    $or: [{ _id: { $lt: before(LATE_RECORDS_KEEP_MS) } }, { _id: { $lt: before(UNWANTED_LATE_RECORDS_MS) }, account: { $nin: accountsWithEndpoints } }],
  });
  return deletedCount;
}
