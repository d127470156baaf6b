// What a report means for the message's recipient (the recipients[].to address, the events'
// `email`). Pure.
//
// Bounces (DSN): the type follows the enhanced status code's class when the report gives one:
// 5.x.x is permanent (hard), 4.x.x transient (soft). Without a readable status the Action decides:
// `failed` is hard, `delayed` soft. So a message an MTA gave up on after retrying a transient
// failure (Action failed, Status 4.4.7 "expired") is a soft bounce: the mailbox may well exist.
// `delivered`, `relayed` and `expanded` are no bounce. A DSN only about another recipient of the
// message (a cc or bcc copy goes out with the same return path) is not the recipient's bounce.
//
// Complaints (ARF): Feedback-Type abuse, fraud or virus is a complaint; not-spam, auth-failure
// and other types are not.
import type { DsnRecipient, Report } from './report';

export type BounceType = 'hard' | 'soft';

export type ReportOutcome =
  | { kind: 'bounce'; bounceType: BounceType; message: string }
  | { kind: 'complaint' }
  | { kind: 'none'; why: string };

const COMPLAINT_TYPES = new Set(['abuse', 'fraud', 'virus']);
const BOUNCE_ACTIONS = new Set(['failed', 'delayed']);

/** Lines of the human-readable part the event's `message` takes at most, and its length at most. */
export const MESSAGE_LINES = 5;
export const MESSAGE_MAX_CHARS = 1000;

export function outcomeOf(report: Report, recipient: string): ReportOutcome {
  if (report.kind === 'other') return { kind: 'none', why: 'neither a delivery status notification nor a feedback report' };
  if (report.kind === 'arf') {
    return COMPLAINT_TYPES.has(report.feedbackType)
      ? { kind: 'complaint' }
      : { kind: 'none', why: `feedback type "${report.feedbackType || 'none'}" is not a complaint` };
  }
  const bounced = report.recipients.filter((r) => BOUNCE_ACTIONS.has(r.action));
  if (bounced.length === 0) return { kind: 'none', why: 'the notification reports no failed or delayed recipient' };
  const email = recipient.toLowerCase();
  const named = bounced.filter((r) => r.finalRecipient !== undefined || r.originalRecipient !== undefined);
  const theirs = named.length === 0 ? bounced : bounced.filter((r) => r.finalRecipient === email || r.originalRecipient === email);
  // The hard one first: a report about two addresses of the recipient's (an alias) counts at its worst.
  const group = theirs.find((r) => bounceTypeOf(r) === 'hard') ?? theirs[0];
  if (!group) return { kind: 'none', why: 'the notification is about another recipient of the message (a cc or bcc copy)' };
  return { kind: 'bounce', bounceType: bounceTypeOf(group), message: bounceMessage(report.text, group.diagnosticCode) };
}

export function bounceTypeOf(recipient: DsnRecipient): BounceType {
  if (recipient.status?.startsWith('5.')) return 'hard';
  if (recipient.status?.startsWith('4.')) return 'soft';
  return recipient.action === 'failed' ? 'hard' : 'soft';
}

/**
 * The event's `message`: the first lines of the report's human-readable part (blank lines left
 * out), and the Diagnostic-Code when those lines do not already say it (the first lines of an
 * MTA's notice are often its boilerplate). Bounded to MESSAGE_MAX_CHARS.
 */
export function bounceMessage(text: string, diagnosticCode: string | undefined): string {
  const lines = text.split(/\r?\n/).map((line) => line.trimEnd()).filter((line) => line.trim() !== '').slice(0, MESSAGE_LINES);
  const said = lines.join('\n');
  const diagnostic = diagnosticCode?.replace(/\s+/g, ' ').trim();
  const extra = diagnostic && !said.replace(/\s+/g, ' ').includes(diagnostic) ? cut(`Diagnostic-Code: ${diagnostic}`, DIAGNOSTIC_MAX_CHARS) : '';
  // The diagnostic keeps its room: the lines give way when both are long.
  return [cut(said, MESSAGE_MAX_CHARS - (extra ? extra.length + 1 : 0)), extra].filter((part) => part !== '').join('\n');
}

const DIAGNOSTIC_MAX_CHARS = 300;
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
