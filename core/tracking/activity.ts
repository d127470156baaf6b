// The activity resource: an account's events, newest first, a page at a time. Pages are cut by
// `_id` (an ObjectId: the order events were stored in), and the cursor names the last event
// of the page, so the next page is "older than that one": events stored while a client pages
// are newer and never shift the pages it has not read yet (nothing skipped, nothing repeated).
import { ObjectId, type Filter } from 'mongodb';
import { createHash } from 'node:crypto';
import { errors, fieldError } from '../shared/errors';
import { GENERAL_FIELDS, type TrackType } from './events';
import type { EventDoc, Store } from '../../adapters/store/store';

/** `full`: every field of the event; `default`: the spec's general fields; `simple`: only `email`. */
export const ACTIVITY_VIEWS = ['default', 'full', 'simple'] as const;
export type ActivityView = (typeof ACTIVITY_VIEWS)[number];

export interface ActivityFilters {
  trackType?: TrackType;
  batchId?: string;
  /** Only events whose timestamp is after this instant. */
  since?: Date;
  /** The recipient's address as a MongoDB pattern (anchored, case-blind; `*` a wildcard). */
  email?: { $regex: string; $options: 'i' };
}

export interface ActivityRequest {
  filters: ActivityFilters;
  view: ActivityView;
  limit: number;
  /** The `next` cursor of the previous page; absent for the first. */
  cursor?: string;
}

export interface ActivityPage {
  events: Record<string, unknown>[];
  /** Events matching the filters when paging began (the first page's count, carried by the cursor). */
  total: number;
  /** The cursor of the next page; undefined on the last. */
  next?: string;
}

/** One page of the account's events. A malformed cursor is a VALIDATION_ERROR naming `cursor`. */
export async function activityPage(store: Store, account: string, request: ActivityRequest): Promise<ActivityPage> {
  const query = filterOf(account, request.filters);
  const fingerprint = fingerprintOf(account, request.filters);
  const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  const page = cursor ? { ...query, _id: { $lt: cursor.after } } : query;
  // The count is taken once, on the first page, and carried: the same total on every page, and
  // one scan per paging rather than one per page. A cursor reused with other filters is recounted.
  const [found, total] = await Promise.all([
    store.events.find(page, { projection: PROJECTIONS[request.view], sort: { _id: -1 }, limit: request.limit + 1 }).toArray(),
    cursor && cursor.fingerprint === fingerprint ? Promise.resolve(cursor.total) : store.events.countDocuments(query),
  ]);
  const more = found.length > request.limit;
  const events = found.slice(0, request.limit);
  return {
    events: events.map(VIEWS[request.view]),
    total,
    next: more ? encodeCursor({ after: events[events.length - 1]._id, total, fingerprint }) : undefined,
  };
}

function filterOf(account: string, filters: ActivityFilters): Filter<EventDoc> {
  return {
    account,
    ...(filters.trackType ? { track_type: filters.trackType } : {}),
    ...(filters.batchId !== undefined ? { batch_id: filters.batchId } : {}),
    // Event timestamps are toISOString() text, whose order is time order.
    ...(filters.since ? { timestamp: { $gt: filters.since.toISOString() } } : {}),
    ...(filters.email ? { email: filters.email } : {}),
  };
}

const PROJECTIONS: Record<ActivityView, Record<string, 1> | undefined> = {
  full: undefined,
  default: Object.fromEntries(GENERAL_FIELDS.map((field) => [field, 1])),
  simple: { email: 1 },
};

const VIEWS: Record<ActivityView, (event: EventDoc) => Record<string, unknown>> = {
  // Fields whose names start with `_` are Herald's own bookkeeping (the cursor's `_id`), not the event's.
  full: (event) => Object.fromEntries(Object.entries(event).filter(([key]) => !key.startsWith('_'))),
  default: (event) => Object.fromEntries(GENERAL_FIELDS.map((field) => [field, event[field]])),
  simple: (event) => ({ email: event.email }),
};

interface Cursor { after: ObjectId; total: number; fingerprint: string }

/** The filters a cursor was made for, so a cursor reused with other filters does not carry a wrong total. */
function fingerprintOf(account: string, filters: ActivityFilters): string {
  const key = [account, filters.trackType, filters.batchId, filters.since?.toISOString(), filters.email?.$regex];
  return createHash('sha256').update(JSON.stringify(key)).digest('base64url').slice(0, 12);
}

/** `<last _id hex>.<total>.<fingerprint>`, base64url: opaque to clients, checked when it comes back. */
function encodeCursor({ after, total, fingerprint }: Cursor): string {
  return Buffer.from(`${after.toHexString()}.${total}.${fingerprint}`).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  const match = /^([0-9a-f]{24})\.(\d{1,15})\.([A-Za-z0-9_-]{12})$/.exec(
    /^[A-Za-z0-9_-]{1,100}$/.test(text) ? Buffer.from(text, 'base64url').toString('latin1') : '',
  );
  if (!match) throw errors.validation({ cursor: fieldError('invalid_value', 'Not a cursor of this listing: follow paging.next as given') });
  return { after: new ObjectId(match[1]), total: Number(match[2]), fingerprint: match[3] };
}
