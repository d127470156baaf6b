// Removes an account's message events (the send ledger's rows among them: a message's outcome is
// an event) of the messages sent before `since`, message by message: every event of a message
// carries its send time (sent_timestamp), so a page takes the events of the oldest messages and
// completes them with the rest of those messages' events (a late open), and a message's counts are
// taken whole (./rollup-writer.ts) before its events go.
//
// Events of a message pruned already (stored since, by a tracking hit its process still knew the
// message for) go uncounted: its counts were taken with it.
//
// A message stays, whatever its age, while something may still need its events:
// - its request is still in its account's send queue (a resumed send skips what the ledger shows sent);
// - its campaign is being sent, or resent (a resend reads the earlier rounds' ledger rows);
// - an event of it waits for a webhook endpoint (after an enabled endpoint's cursor, or in a retry batch).
// It goes with a later run.
import { ObjectId } from 'mongodb';
import type { EventDoc, LedgerFields, Store, TaskState } from '../../adapters/store/store';
import { campaignBatchId } from '../campaigns/model';
import { clearPending, recordPending, type PendingPage } from './hold';
import { inPages, type PruneControls, type PruneTuning } from './pages';
import { addRollups, COUNTED_FIELDS, rollupsOf, type CountedEvent } from './rollup-writer';

/** Messages kept by one run at most: beyond it the run leaves the account's events to the next (its query excludes them one by one). */
const MAX_KEPT_MESSAGES = 5000;

const RUNNING_TASK: TaskState[] = ['QUEUED', 'INITIALIZING', 'PROCESSING'];

export interface PruneScope { account: string; since: Date; holder: string }

type ReadEvent = CountedEvent & Pick<EventDoc, '_id'> & { _ledger?: Pick<LedgerFields, 'requestId'> };

/** What keeps a message, whatever its age (see above); read once per run. */
interface Guards {
  sendingBatches: string[];
  queuedRequests: Set<string>;
  /** Hex _id of the oldest enabled webhook endpoint's cursor: events after it are not delivered yet. */
  undeliveredAfter?: string;
  retrying: Set<string>;
}

async function guardsOf(store: Store, account: string, since: Date): Promise<Guards> {
  const [sending, tasks, queued, endpoints, retries] = await Promise.all([
    store.campaigns.find({ account, state: 'SENDING' }).project<{ id: number }>({ _id: 0, id: 1 }).toArray(),
    store.tasks.find({ account, type: { $in: ['CAMPAIGN_LAUNCH', 'CAMPAIGN_RESEND'] }, state: { $in: RUNNING_TASK } })
      .project<{ parameters: { campaignId?: unknown } }>({ _id: 0, parameters: 1 }).toArray(),
    // A request queued since before `since` may have messages sent before it.
    store.sendQueue.find({ account, _id: { $lt: ObjectId.createFromTime(Math.floor(since.getTime() / 1000)) } })
      .project<{ requestId: string }>({ _id: 0, requestId: 1 }).toArray(),
    store.webhooks.find({ account, enabled: true }).project<{ cursor: ObjectId }>({ _id: 0, cursor: 1 }).toArray(),
    store.webhookRetries.find({ account }).project<{ eventIds: ObjectId[] }>({ _id: 0, eventIds: 1 }).toArray(),
  ]);
  const campaignIds = new Set([...sending.map((c) => c.id), ...tasks.map((t) => Number(t.parameters.campaignId)).filter(Number.isInteger)]);
  const cursors = endpoints.map((endpoint) => endpoint.cursor.toHexString()).sort();
  return {
    sendingBatches: [...campaignIds].map((id) => campaignBatchId(account, id)),
    queuedRequests: new Set(queued.map((entry) => entry.requestId)),
    undeliveredAfter: cursors[0],
    retrying: new Set(retries.flatMap((retry) => retry.eventIds.map((id) => id.toHexString()))),
  };
}

function mustStay(events: ReadEvent[], guards: Guards, sinceIso: string): boolean {
  return events.some((event) => {
    const id = event._id.toHexString();
    return event.sent_timestamp >= sinceIso
      || (guards.undeliveredAfter !== undefined && id > guards.undeliveredAfter)
      || guards.retrying.has(id)
      || (event._ledger !== undefined && guards.queuedRequests.has(event._ledger.requestId));
  });
}

/** Removes the account's events of messages sent before `since`, page by page; returns how many. */
export async function pruneEvents(store: Store, scope: PruneScope, controls: PruneControls, tuning: PruneTuning): Promise<number> {
  const { account, holder } = scope;
  const sinceIso = scope.since.toISOString();
  const guards = await guardsOf(store, account, scope.since);
  const kept = new Set<string>();
  return inPages(controls, tuning, async () => {
    if (kept.size > MAX_KEPT_MESSAGES) return null;
    const head = await store.events.find({
      account, sent_timestamp: { $lt: sinceIso },
      ...(kept.size > 0 ? { mail_id: { $nin: [...kept] } } : {}),
      ...(guards.sendingBatches.length > 0 ? { batch_id: { $nin: guards.sendingBatches } } : {}),
    }, { projection: { _id: 0, mail_id: 1 }, limit: tuning.pageSize }).toArray();
    if (head.length === 0) return null;
    // Every event of those messages: the page takes them whole.
    const events = await store.events.find({ account, mail_id: { $in: [...new Set(head.map((event) => event.mail_id))] } }, {
      projection: { ...COUNTED_FIELDS, '_ledger.requestId': 1 },
    }).toArray() as unknown as ReadEvent[];
    const byMail = new Map<string, ReadEvent[]>();
    for (const event of events) byMail.set(event.mail_id, [...(byMail.get(event.mail_id) ?? []), event]);
    const page: ReadEvent[] = [];
    const counted: ReadEvent[] = [];
    for (const [mailId, ofMail] of byMail) {
      if (mustStay(ofMail, guards, sinceIso)) {
        kept.add(mailId);
        continue;
      }
      page.push(...ofMail);
      // A message's ledger row is its first event: events without it were stored after the message
      // was pruned (a hit served from a process's cache), and are not counted twice.
      if (ofMail.some((event) => event._ledger !== undefined)) counted.push(...ofMail);
    }
    if (page.length > 0) await removePage(store, account, holder, page, counted);
    return page.length;
  });
}

/** Records the page as pending, then removes it (./hold.ts: a pruner that stops midway leaves it to the next). */
async function removePage(store: Store, account: string, holder: string, events: ReadEvent[], counted: ReadEvent[]): Promise<void> {
  const pending: PendingPage = { page: new ObjectId().toHexString(), ids: events.map((event) => event._id), rollups: rollupsOf(account, counted) };
  await recordPending(store, account, holder, pending);
  await finishPage(store, account, pending);
}

/** Adds a recorded page's counts (once), removes its events, and clears it. */
export async function finishPage(store: Store, account: string, pending: PendingPage): Promise<void> {
  await addRollups(store, account, pending.page, pending.rollups);
  await store.events.deleteMany({ _id: { $in: pending.ids }, account });
  await clearPending(store, account, pending.page);
}
