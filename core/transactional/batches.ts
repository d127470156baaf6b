// The account's transactional batches as the account API shows them (…/batches): the accepted
// requests (sendRequests) grouped by their batch id (one request each, unless sends shared a
// batch_code), with what their messages became, counted from the batch's events like a
// campaign's (core/tracking/batch-counts.ts):
//   sent       messages handed to the relay, or refused by it at sending
//   bounced    messages with a bounce (a refusal, a report; hard or soft), each once
//   delivered  sent and not bounced (so far)
//   dropped    messages never sent (suppressed address, cancelled batch)
// A batch's one page of messages comes from the send ledger (one row per message once its
// outcome is known) with each message's events.
import { workflowIds } from '../../adapters/temporal/contracts';
import type { LedgerRowDoc, SendRequestDoc, Store } from '../../adapters/store/store';
import { countBatchEvents, type EventCounts } from '../tracking/batch-counts';
import { readHttpBody, readSmtpSubmission } from './request';

export type BatchStatus = 'scheduled' | 'sending' | 'sent' | 'cancelled';

export interface BatchSummary {
  id: string;
  created: Date;
  status: BatchStatus;
  /** Messages asked for: a recipients[] element (HTTP) or an envelope recipient (SMTP) each. */
  recipients: number;
  sent: number;
  delivered: number;
  bounced: number;
  dropped: number;
  /** The first request's subject (SMTP: the Subject header as written); null when it has none. */
  subject: string | null;
  source: 'http' | 'smtp';
  /** Requests in the batch (more than one when sends shared a batch_code). */
  requests: number;
  /** The workflow that sent it: the account's AccountSender, or the ScheduledSend of a request with a launch_date. */
  workflowId: string;
}

export interface BatchMessage { mail_id: string; to: string; status: 'sent' | 'bounced' | 'dropped' | 'failed'; events: Array<{ type: string; time: string }> }

export interface BatchDetail extends BatchSummary {
  /** The first MAX_BATCH_MESSAGES messages whose outcome is known, in the order they were sent. */
  messages: BatchMessage[];
  /** Messages whose outcome is known, all of them (messages.length is at most MAX_BATCH_MESSAGES). */
  messagesTotal: number;
  temporal: {
    namespace: string;
    workflowId: string;
    /** The runs that sent its messages (the ledger rows name them), first first; empty before any message went out. */
    runIds: string[];
    /** A Temporal UI workflow search that finds those runs (or the workflow's, before any). */
    query: string;
  };
}

export const MAX_BATCH_MESSAGES = 1000;
const COUNTED = ['track.mail.sent', 'track.mail.bounced', 'track.mail.dropped'] as const;

export interface BatchPageRequest { offset: number; limit: number; sortdir: 'asc' | 'desc'; idContains?: string }

/** A page of the account's batches by their first request's acceptance, with the number of batches. */
export async function batchPage(store: Store, account: string, page: BatchPageRequest): Promise<{ items: BatchSummary[]; total: number }> {
  const match = {
    account,
    ...(page.idContains ? { batchId: { $regex: page.idContains.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' } } : {}),
  };
  const dir = page.sortdir === 'asc' ? 1 : -1;
  const [rows, counted] = await Promise.all([
    store.sendRequests.aggregate<{ _id: string }>([
      { $match: match },
      { $group: { _id: '$batchId', created: { $min: '$acceptedAt' } } },
      { $sort: { created: dir, _id: dir } },
      { $skip: page.offset },
      { $limit: page.limit },
    ]).toArray(),
    store.sendRequests.aggregate<{ n: number }>([
      { $match: match }, { $group: { _id: '$batchId' } }, { $group: { _id: null, n: { $sum: 1 } } },
    ]).toArray(),
  ]);
  const items = await summaries(store, account, rows.map((row) => row._id));
  return { items, total: counted[0]?.n ?? 0 };
}

/** One batch with its first messages; undefined when the account has no such batch. */
export async function batchDetail(store: Store, account: string, batchId: string, namespace: string): Promise<BatchDetail | undefined> {
  const [summary] = await summaries(store, account, [batchId]);
  if (!summary) return undefined;
  const requestIds = (await store.sendRequests.find({ account, batchId }).project<{ _id: string }>({ _id: 1 }).toArray()).map((r) => r._id);
  const ledger = { account, '_ledger.requestId': { $in: requestIds } };
  const [rows, messagesTotal] = await Promise.all([
    store.ledger.find(ledger).project<Pick<LedgerRowDoc, '_outcome_of' | '_ledger' | 'email'>>({ _id: 0, email: 1, _outcome_of: 1, _ledger: 1 })
      .sort({ '_ledger.sentAt': 1, _outcome_of: 1 }).limit(MAX_BATCH_MESSAGES).toArray(),
    store.ledger.countDocuments(ledger),
  ]);
  const events = await store.events.find({ account, batch_id: batchId, mail_id: { $in: rows.map((row) => row._outcome_of) } })
    .project<{ mail_id: string; track_type: string; timestamp: string }>({ _id: 0, mail_id: 1, track_type: 1, timestamp: 1 }).toArray();
  const byMail = new Map<string, Array<{ type: string; time: string }>>();
  for (const event of events.sort((a, b) => a.timestamp.localeCompare(b.timestamp))) {
    byMail.set(event.mail_id, [...(byMail.get(event.mail_id) ?? []), { type: event.track_type, time: event.timestamp }]);
  }
  const messages = rows.map(({ _outcome_of: mailId, _ledger: row, email }): BatchMessage => {
    const ofMail = byMail.get(mailId) ?? [];
    const bounced = ofMail.some((event) => event.type === 'track.mail.bounced');
    return { mail_id: mailId, to: email, status: bounced ? 'bounced' : row.status, events: ofMail };
  });
  const runIds = [...new Set(rows.flatMap(({ _ledger: row }) => (row.sentBy ? [row.sentBy.runId] : [])))];
  return { ...summary, messages, messagesTotal, temporal: { namespace, workflowId: summary.workflowId, runIds, query: runsQuery(summary.workflowId, batchId, runIds) } };
}

/**
 * The Temporal UI search for a batch's runs: a scheduled request's own workflow by its batch id
 * (HeraldBatch); the account's sender by the runs that sent the batch.
 */
function runsQuery(workflowId: string, batchId: string, runIds: string[]): string {
  if (workflowId.startsWith('tx-')) return `HeraldBatch = "${batchId}"`;
  const runs = runIds.length === 0 ? '' : runIds.length === 1 ? ` AND RunId = "${runIds[0]}"` : ` AND RunId IN (${runIds.map((id) => `"${id}"`).join(', ')})`;
  return `WorkflowId = "${workflowId}"${runs}`;
}

/** The batches' summaries, in the order of `batchIds` (a batch the account does not have is left out). */
async function summaries(store: Store, account: string, batchIds: string[]): Promise<BatchSummary[]> {
  if (batchIds.length === 0) return [];
  const [requests, counts] = await Promise.all([
    store.sendRequests.find({ account, batchId: { $in: batchIds } }).sort({ acceptedAt: 1, _id: 1 }).toArray(),
    countBatchEvents(store, account, batchIds, COUNTED),
  ]);
  // Ledger rows: one per message whose outcome is known, so a batch is done when it has one per recipient.
  const rows = await store.ledger.aggregate<{ _id: string; n: number }>([
    { $match: { account, '_ledger.requestId': { $in: requests.map((request) => request._id) } } },
    { $group: { _id: '$_ledger.requestId', n: { $sum: 1 } } },
  ]).toArray();
  const outcomes = new Map(rows.map((row) => [row._id, row.n]));
  const byBatch = new Map<string, SendRequestDoc[]>();
  for (const request of requests) byBatch.set(request.batchId, [...(byBatch.get(request.batchId) ?? []), request]);
  return batchIds.filter((id) => byBatch.has(id)).map((id) => {
    const ofBatch = byBatch.get(id)!;
    const known = ofBatch.reduce((sum, request) => sum + (outcomes.get(request._id) ?? 0), 0);
    return summaryOf(account, id, ofBatch, counts.get(id), known);
  });
}

function summaryOf(account: string, id: string, requests: SendRequestDoc[], counts: EventCounts | undefined, known: number): BatchSummary {
  const of = (type: string) => counts?.get(type) ?? { events: 0, messages: 0, hard: 0, complaints: 0, unsent: 0 };
  const bounced = of('track.mail.bounced');
  const sent = of('track.mail.sent').events + bounced.unsent;
  const dropped = of('track.mail.dropped').events;
  const contents = requests.map(contentOf);
  const recipients = contents.reduce((sum, content) => sum + content.recipients, 0);
  const [first] = requests;
  const now = Date.now();
  const waiting = requests.some((request) => request.launchAt && request.launchAt.getTime() > now);
  const status: BatchStatus = requests.some((request) => request.cancelledAt) ? 'cancelled'
    : known >= recipients ? 'sent' : waiting && known === 0 ? 'scheduled' : 'sending';
  return {
    id, created: first.acceptedAt, status, recipients, sent, delivered: sent - bounced.messages, bounced: bounced.messages, dropped,
    subject: contents[0].subject, source: first.source, requests: requests.length,
    workflowId: first.launchAt ? workflowIds.scheduledSend(account, first._id) : workflowIds.accountSender(account),
  };
}

/** What a stored request asks for: its recipients' number and its subject. */
function contentOf(request: SendRequestDoc): { recipients: number; subject: string | null } {
  if (request.source === 'http') {
    const body = readHttpBody(request);
    return { recipients: body.recipients.length, subject: body.subject };
  }
  const submission = readSmtpSubmission(request);
  const line = submission.message.headerLines.find((header) => /^subject:/i.test(header));
  return { recipients: submission.rcptTo.length, subject: line ? line.slice(8).replace(/\r\n[ \t]+/g, ' ').trim() : null };
}
