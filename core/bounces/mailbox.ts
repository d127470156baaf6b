// The bounce mailbox (feedback.mailbox of the relays file), for operators who cannot take mail on
// port 25: bounces and complaints land in an IMAP mailbox, and each read takes the messages not
// read yet, oldest first, up to a batch, through the same DSN and ARF reader as the SMTP listener
// (takeReport). Then, message by message:
// - a report of a message Herald sent is recorded, then disposed of as the setting says (deleted,
//   or flagged \Seen and left);
// - a report that names no Herald message (or says nothing to record) is disposed of the same way;
// - a message that is no report at all (a person's reply, an auto-reply, an unparsable or huge
//   message) is left where it is and marked with the keyword $HeraldUnreadable, so later reads skip
//   it; a person decides what it is.
// A failure of the store stops the read before the message is disposed of: it is read again next
// time, and recording a report twice records it once (its track_id comes from the report).
// The mailbox itself is reached through a MailboxClient (adapters/imap/mailbox-port.ts; imap-client.ts is the IMAP one).
import { noteMailboxRead } from './feedback-sources';
import { metrics } from '../../adapters/metrics/registry';
import type { BounceMailboxSettings } from './feedback-settings';
import { takeReport, type ReportDeps, type ReportResult } from './intake';
import {
  describeMailbox, MailboxError, UNREADABLE_KEYWORD, type MailboxClient, type MailboxMessage, type MailboxTarget, type OpenMailbox,
} from '../../adapters/imap/mailbox-port';

export { UNREADABLE_KEYWORD };

/** Messages read in one run at most (the next run, or the workflow's next batch, takes the rest). */
export const MAILBOX_BATCH = 500;
/** A message larger than this is no report (reports quote at most the headers or a message). */
export const MAX_REPORT_BYTES = 10 * 1024 * 1024;

export function mailboxTarget(settings: BounceMailboxSettings): MailboxTarget {
  return { url: settings.url, folder: settings.folder ?? 'INBOX', afterReading: settings.afterReading ?? 'delete' };
}

/** The part of the logger the reader uses (pino's shape). */
export interface MailboxLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface MailboxReadDeps extends ReportDeps {
  client: MailboxClient;
  log: MailboxLog;
  heartbeat?: () => void;
  /** True once the read should stop (the activity was cancelled): it stops between messages. */
  stopped?: () => boolean;
}

export interface MailboxReadResult {
  /** Messages taken in this run, by outcome. */
  bounces: number;
  complaints: number;
  nothing: number;
  unreadable: number;
  /** More messages were waiting than one batch takes. */
  more: boolean;
}

/** Reads one batch of the mailbox (up to `limit` messages); see the top of this file. */
export async function readBounceMailbox(deps: MailboxReadDeps, target: MailboxTarget, limit = MAILBOX_BATCH): Promise<MailboxReadResult> {
  const { log } = deps;
  const where = describeMailbox(target);
  const result: MailboxReadResult = { bounces: 0, complaints: 0, nothing: 0, unreadable: 0, more: false };
  let mailbox: OpenMailbox;
  try {
    mailbox = await deps.client.open(target);
  } catch (error) {
    log.error({ mailbox: where, problem: error instanceof MailboxError ? error.kind : 'connection', error: messageOf(error) }, 'bounce mailbox: cannot read it');
    throw error;
  }
  try {
    const { messages, total } = await mailbox.pending(limit);
    result.more = total > messages.length;
    for (const message of messages) {
      if (deps.stopped?.()) {
        result.more = true;
        break;
      }
      deps.heartbeat?.();
      const outcome = await takeOne(deps, mailbox, message, target);
      result[outcome] += 1;
      metrics.bounceMailboxReports.inc({ outcome: outcome === 'bounces' ? 'bounce' : outcome === 'complaints' ? 'complaint' : outcome });
    }
  } finally {
    await mailbox.close();
  }
  metrics.bounceMailboxLastRead.set(Date.now() / 1000);
  // The console's "last read" and "last report" of the mailbox (./feedback-sources.ts).
  const taken = result.bounces + result.complaints + result.nothing;
  await noteMailboxRead(deps.store, new Date(), { events: taken, recorded: result.bounces + result.complaints, ignored: result.nothing });
  if (result.bounces + result.complaints + result.nothing + result.unreadable > 0 || result.more) log.info({ mailbox: where, ...result }, 'bounce mailbox read');
  return result;
}

type Outcome = 'bounces' | 'complaints' | 'nothing' | 'unreadable';

async function takeOne(deps: MailboxReadDeps, mailbox: OpenMailbox, message: MailboxMessage, target: MailboxTarget): Promise<Outcome> {
  const { log } = deps;
  const where = describeMailbox(target);
  const unreadable = async (why: string): Promise<Outcome> => {
    await mailbox.markUnreadable(message.uid);
    log.warn({ mailbox: where, uid: message.uid, why, keyword: UNREADABLE_KEYWORD }, 'bounce mailbox: a message that is no report, left for a person');
    return 'unreadable';
  };
  if (message.size > MAX_REPORT_BYTES) return unreadable(`larger than ${MAX_REPORT_BYTES / 1024 / 1024} MB`);
  const raw = await mailbox.read(message.uid);
  if (!raw) return 'nothing';
  const taken: ReportResult = await takeReport(deps, raw, { kind: 'mailbox', name: target.folder });
  if (taken.recorded === 'nothing' && taken.unreadable) return unreadable(taken.why);
  await mailbox.dispose(message.uid);
  if (taken.recorded === 'nothing') {
    log.info({ mailbox: where, uid: message.uid, account: taken.account, mailId: taken.mailId, why: taken.why, disposed: target.afterReading }, 'bounce mailbox: report taken, nothing to record');
    return 'nothing';
  }
  log.info({
    mailbox: where, uid: message.uid, account: taken.account, mailId: taken.mailId, recorded: taken.recorded,
    ...(taken.recorded === 'bounce' ? { bounceType: taken.bounceType } : {}), disposed: target.afterReading,
  }, 'bounce mailbox: report recorded');
  return taken.recorded === 'bounce' ? 'bounces' : 'complaints';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
