// The move of a release-before-2026-11-29 ledger (rows in `messages` beside their events) onto the
// outcome events (adapters/store/ledger-migration.ts), against the suite's store: every row's
// fields end on its event (the event kept, with its _id, so webhook cursors and the activity's
// order stand), a row whose event a crash kept out brings it back, the readers find every row,
// and a second or concurrent run changes nothing. And the ledger's one rule: the first outcome of a mail_id stays.
import { ObjectId } from 'mongodb';
import { connectStore, type LegacyMessageDoc, type Store } from '../../adapters/store/store';
import { migrateLegacyLedger } from '../../adapters/store/ledger-migration';
import { newId } from '../../core/shared/ids';
import { LedgerWriter, ledgerRow } from '../../core/sending/ledger';
import type { PlannedMessage } from '../../core/sending/plan';
import { readLedger, resumeFromLedger } from '../../core/sending/resume';
import { sentEventOf } from '../../core/sending/sent-mail';
import { buildEvent, type TrackType } from '../../core/tracking/events';
import { dropDatabase, suiteMongodbUri } from '../support/herald';

const database = `herald_migrate_${newId().slice(0, 8)}`;
const account = 'mover';
let store: Store;

beforeAll(async () => {
  store = await connectStore(suiteMongodbUri(), database);
});
afterAll(async () => {
  await store.close();
  await dropDatabase(database);
});

/** An old row and its outcome event, as the old send engine wrote them. */
function legacyRow(n: number, type: TrackType, status: LegacyMessageDoc['status']): LegacyMessageDoc {
  const mailId = `mail_move${n}_${newId()}`;
  const at = new Date(Date.UTC(2026, 10, 1, 12, 0, n));
  const event = buildEvent(type, {
    account, batch_id: `${account}_transactional_b`, mail_id: mailId, email: `r${n}@example.net`, sent_timestamp: at, tags: ['old'], custom_args: {}, mta: 'herald.test',
  }, at, type);
  return { _id: mailId, account, requestId: 'req-old', email: `r${n}@example.net`, messageId: `<${mailId}@herald.test>`, status, relayResponse: `answer ${n}`, sentAt: at, event };
}

it('moves each old row onto its event, brings back an event a crash kept out, and the ledger readers find them all', async () => {
  const sent = legacyRow(1, 'track.mail.sent', 'sent');
  const dropped = legacyRow(2, 'track.mail.dropped', 'dropped');
  const lostEvent = legacyRow(3, 'track.mail.bounced', 'failed');
  const open = buildEvent('track.mail.opened', { ...sent.event, sent_timestamp: sent.sentAt }, new Date(), 'hit');
  await store.legacyMessages.insertMany([sent, dropped, lostEvent]);
  await store.events.insertMany([sent.event, dropped.event, open]);

  expect(await migrateLegacyLedger(store)).toBe(3);
  expect(await store.legacyMessages.countDocuments({})).toBe(0);
  const events = await store.events.find({ account }).sort({ _id: 1 }).toArray();
  expect(events.map((event) => event.track_id).sort()).toEqual([sent, dropped, lostEvent].map((row) => row.event.track_id).concat(open.track_id).sort());
  // The events kept their _ids (cursor order); the open is not a ledger row.
  expect(events.find((event) => event.track_id === sent.event.track_id)!._id.equals(sent.event._id as ObjectId)).toBe(true);
  expect(events.find((event) => event.track_id === open.track_id)!._ledger).toBeUndefined();

  const ids = [sent._id, dropped._id, lostEvent._id];
  const ledger = await readLedger(store, account, ids);
  expect(ids.map((id) => ledger.get(id)?.status)).toEqual(['sent', 'dropped', 'failed']);
  const resume = await resumeFromLedger(store, account, [...ids, 'mail_never_sent']);
  expect(resume.remaining).toEqual(['mail_never_sent']);
  expect(resume.counts).toEqual({ sent: 1, failed: 1, dropped: 1 });
  const row = await store.ledger.findOne({ _outcome_of: sent._id });
  expect(row!._outcome_of).toBe(sent._id);
  expect(row!._ledger).toEqual({ requestId: 'req-old', messageId: sent.messageId, status: 'sent', relayResponse: 'answer 1', sentAt: sent.sentAt });
  expect((await sentEventOf(store, account, sent._id))?.track_id).toBe(sent.event.track_id);

  // Once moved, a start finds nothing to move.
  expect(await migrateLegacyLedger(store)).toBe(0);
});

it('two processes starting together move each row once', async () => {
  const rows = Array.from({ length: 2_500 }, (_, n) => legacyRow(100 + n, 'track.mail.sent', 'sent'));
  await store.legacyMessages.insertMany(rows);
  await store.events.insertMany(rows.filter((_, n) => n % 10 !== 0).map((row) => row.event)); // a tenth lost their event
  const moved = await Promise.all([migrateLegacyLedger(store), migrateLegacyLedger(store)]);
  expect(moved[0] + moved[1]).toBeGreaterThanOrEqual(rows.length);
  expect(await store.legacyMessages.countDocuments({})).toBe(0);
  expect(await store.ledger.countDocuments({ account, '_ledger.requestId': 'req-old', '_ledger.status': 'sent', tags: 'old', track_type: 'track.mail.sent' })).toBe(rows.length + 1);
});

it('keeps the first outcome of a mail_id: a second outcome (another track_id) is not recorded', async () => {
  const first = legacyRow(9_000, 'track.mail.sent', 'sent');
  const second = legacyRow(9_001, 'track.mail.bounced', 'failed');
  const writer = new LedgerWriter(store);
  const message = { mailId: first._id, requestId: 'req-race', messageId: first.messageId } as PlannedMessage;
  await writer.record(ledgerRow(message, 'sent', '250 ok', first.event));
  await writer.record(ledgerRow(message, 'failed', '550 no', { ...second.event, mail_id: first._id }));
  const rows = await store.ledger.find({ _outcome_of: first._id }).toArray();
  expect(rows.map((row) => [row.track_type, row._ledger.status])).toEqual([['track.mail.sent', 'sent']]);
});
