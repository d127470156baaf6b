// What the soak checks once the work drained: every accepted message at the sink or its failure
// recorded, copies beyond the first only after a fault and within what was in flight then, the
// campaigns finished with counts matching the sink, every webhook event delivered or discarded,
// every tracking hit recorded once, and the contacts as their last edits left them.
import { ObjectId, type Db } from 'mongodb';
import type { Accepted } from './context';
import type { ContactsRecord } from './contacts-load';
import { copyKey, type SoakSink } from './mail-sink';
import type { TrackingRecord } from './tracking-load';
import type { WebhookReceiver } from './webhook-receiver';

export interface Fault {
  at: number;
  target: string;
  /** What Herald may have had handed to the relay and not yet recorded at that instant. */
  inFlightBound: number;
  duplicates: number;
}

export interface MailCheck {
  accepted: number;
  delivered: number;
  failedRecorded: number;
  suppressedDropped: number;
  suppressedDelivered: number;
  lost: number;
  lostSamples: string[];
  /** Where Herald has the lost messages of HTTP requests: still queued, stored but not queued, never stored. */
  lostWhere: Record<string, number>;
  duplicates: number;
  duplicatesOverBound: number;
  messageIdMismatches: number;
  deliveredWithoutAnswer: number;
}

const FAILED_TYPES = ['track.mail.dropped', 'track.mail.bounced'];

/**
 * Each accepted message at the sink, or its `dropped`/`bounced` event; duplicates put on the fault
 * before them. `owedElsewhere` tells the sink's other copies Herald owes (campaigns, the retained account).
 */
export async function checkMail(db: Db, account: string, accepted: Accepted[], sink: SoakSink, faults: Fault[], owedElsewhere: (key: string, subject: string) => boolean): Promise<MailCheck> {
  const owed = new Map<string, Accepted>();
  for (const a of accepted) owed.set(copyKey(a.to, a.subject), a);
  const missing: Accepted[] = [];
  const out: MailCheck = {
    accepted: owed.size, delivered: 0, failedRecorded: 0, suppressedDropped: 0, suppressedDelivered: 0, lost: 0, lostSamples: [], lostWhere: {},
    duplicates: 0, duplicatesOverBound: 0, messageIdMismatches: 0, deliveredWithoutAnswer: 0,
  };
  for (const [key, a] of owed) {
    const copies = sink.copies.get(key);
    if (copies && a.suppressed) out.suppressedDelivered += 1;
    else if (copies) out.delivered += 1;
    else missing.push(a);
  }
  const recorded = new Set<string>();
  for (let i = 0; i < missing.length; i += 1000) {
    const emails = missing.slice(i, i + 1000).map((a) => a.to);
    const events = await db.collection('events').find({ account, email: { $in: emails }, track_type: { $in: FAILED_TYPES } }, { projection: { email: 1, batch_id: 1 } }).toArray();
    for (const event of events) recorded.add(`${String(event.email)}|${String(event.batch_id)}`).add(`${String(event.email)}|*`);
  }
  for (const a of missing) {
    const found = recorded.has(`${a.to}|${a.batchId ?? '*'}`);
    if (found && a.suppressed) out.suppressedDropped += 1;
    else if (found) out.failedRecorded += 1;
    else {
      out.lost += 1;
      if (out.lostSamples.length < 10) out.lostSamples.push(`${a.kind} ${a.to} "${a.subject}"${a.suppressed ? ' (suppressed: no dropped event)' : ''}`);
    }
  }
  out.lostWhere = await whereLost(db, account, missing.filter((a) => !recorded.has(`${a.to}|${a.batchId ?? '*'}`)));
  const ordered = [...faults].sort((x, y) => x.at - y.at);
  let beforeAnyFault = 0;
  for (const [key, copies] of sink.copies) {
    const subject = key.slice(key.indexOf('|') + 1);
    if (!owed.has(key) && !owedElsewhere(key, subject)) out.deliveredWithoutAnswer += 1;
    if (copies.length < 2) continue;
    if (copies.some((c) => c.messageId !== copies[0].messageId)) out.messageIdMismatches += 1;
    for (const extra of copies.slice(1)) {
      out.duplicates += 1;
      const fault = ordered.filter((f) => f.at <= extra.at).pop();
      if (fault) fault.duplicates += 1; else beforeAnyFault += 1;
    }
  }
  out.duplicatesOverBound = ordered.filter((f) => f.duplicates > f.inFlightBound).length + (beforeAnyFault > 0 ? 1 : 0);
  return out;
}

/** For each lost message of an HTTP request (its batch id known): where its request stands in the store. */
async function whereLost(db: Db, account: string, lost: Accepted[]): Promise<Record<string, number>> {
  const where: Record<string, number> = {};
  const batches = [...new Set(lost.map((a) => a.batchId).filter((b): b is string => !!b))];
  for (let i = 0; i < batches.length; i += 500) {
    const slice = batches.slice(i, i + 500);
    const [requests, queued] = await Promise.all([
      db.collection('sendRequests').find({ account, batchId: { $in: slice } }, { projection: { batchId: 1, cancelledAt: 1, launchAt: 1 } }).toArray(),
      db.collection('sendQueue').find({ account, batchId: { $in: slice } }, { projection: { batchId: 1, taken: 1, dueAt: 1, deferrals: 1 } }).toArray(),
    ]);
    const stored = new Set(requests.map((r) => String(r.batchId)));
    const queue = new Map(queued.map((q) => [String(q.batchId), q]));
    for (const batch of slice) {
      const entry = queue.get(batch);
      const state = entry ? `queued${entry.taken ? ', taken' : ''}${entry.dueAt ? ', deferred' : ''}` : stored.has(batch) ? 'stored, not queued' : 'no request stored';
      const count = lost.filter((a) => a.batchId === batch).length;
      where[state] = (where[state] ?? 0) + count;
    }
  }
  const smtp = lost.filter((a) => !a.batchId).length;
  if (smtp > 0) where['smtp (batch not known)'] = smtp;
  return where;
}

/**
 * Event track_ids of the account from `since` on that the receiver never took and no discard
 * records; `samples` say what the first ones are and when their _id was made (the delivery
 * cursor's order).
 */
export async function missingWebhookEvents(db: Db, account: string, since: Date, receiver: WebhookReceiver): Promise<{ events: number; discarded: number; missing: string[]; samples: string[] }> {
  const discarded = new Set((await db.collection('webhookDiscards').find({ account }, { projection: { trackId: 1 } }).toArray()).map((d) => String(d.trackId)));
  const missing: string[] = [];
  const samples: string[] = [];
  let events = 0;
  const cursor = db.collection('events').find({ account, _id: { $gte: objectIdAt(since) } }, { projection: { track_id: 1, track_type: 1, email: 1 } }).batchSize(5000);
  for await (const event of cursor) {
    events += 1;
    const id = String(event.track_id);
    if (receiver.received.has(id) || discarded.has(id)) continue;
    missing.push(id);
    if (samples.length < 10) samples.push(`${String(event.track_type)} ${String(event.email)} (_id of ${(event._id as ObjectId).getTimestamp().toISOString()})`);
  }
  return { events, discarded: discarded.size, missing, samples };
}

function objectIdAt(date: Date): ObjectId {
  return ObjectId.createFromTime(Math.floor(date.getTime() / 1000));
}

export interface TrackingCheck { checked: number; mismatched: number; samples: string[]; unsubscribedInconsistent: number }

/** Opens and clicks per address as answered, against Herald's events; each one-click's address suppressed and its contact UNSUBSCRIBED. */
export async function checkTracking(db: Db, account: string, record: TrackingRecord): Promise<TrackingCheck> {
  const out: TrackingCheck = { checked: 0, mismatched: 0, samples: [], unsubscribedInconsistent: 0 };
  for (const [type, expected] of [['track.mail.opened', record.opens], ['track.mail.clicked', record.clicks]] as const) {
    const emails = [...expected.keys()].filter((email) => !record.uncertain.has(email));
    const counts = new Map<string, number>();
    for (let i = 0; i < emails.length; i += 1000) {
      const events = await db.collection('events').find({ account, track_type: type, email: { $in: emails.slice(i, i + 1000) } }, { projection: { email: 1 } }).toArray();
      for (const event of events) counts.set(String(event.email), (counts.get(String(event.email)) ?? 0) + 1);
    }
    for (const email of emails) {
      out.checked += 1;
      if ((counts.get(email) ?? 0) === expected.get(email)) continue;
      out.mismatched += 1;
      if (out.samples.length < 10) out.samples.push(`${type} ${email}: ${expected.get(email)} answered, ${counts.get(email) ?? 0} recorded`);
    }
  }
  for (const email of record.unsubscribed) {
    const [suppression, contact] = await Promise.all([
      db.collection('suppressions').findOne({ account, email }),
      db.collection('contacts').findOne({ account, email }, { projection: { state: 1 } }),
    ]);
    if (!suppression || (contact && contact.state !== 'UNSUBSCRIBED')) {
      out.unsubscribedInconsistent += 1;
      if (out.samples.length < 10) out.samples.push(`unsubscribed ${email}: suppression ${suppression ? 'yes' : 'no'}, contact ${String(contact?.state)}`);
    }
  }
  return out;
}

export interface ContactsCheck { edited: number; editsWrong: number; imported: number; importsMissing: number; samples: string[] }

export async function checkContacts(db: Db, account: string, record: ContactsRecord): Promise<ContactsCheck> {
  const out: ContactsCheck = { edited: 0, editsWrong: 0, imported: record.imported.length, importsMissing: 0, samples: [] };
  const edited = [...record.lastName].filter(([email]) => !record.uncertain.has(email));
  const names = new Map((await db.collection('contacts').find({ account, email: { $in: edited.map(([email]) => email) } }, { projection: { email: 1, firstName: 1 } }).toArray())
    .map((c) => [String(c.email), String(c.firstName)]));
  for (const [email, firstName] of edited) {
    out.edited += 1;
    if (names.get(email) === firstName) continue;
    out.editsWrong += 1;
    if (out.samples.length < 10) out.samples.push(`${email}: first name ${names.get(email)}, last edit answered 200 set ${firstName}`);
  }
  for (let i = 0; i < record.imported.length; i += 1000) {
    const emails = record.imported.slice(i, i + 1000);
    const found = await db.collection('contacts').countDocuments({ account, email: { $in: emails } });
    out.importsMissing += emails.length - found;
  }
  return out;
}
