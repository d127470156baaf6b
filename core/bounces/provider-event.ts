// What a provider's webhook says of one message, whatever the provider: the shape each provider's
// mapping (ses.ts, sendgrid.ts, mailgun.ts, postmark.ts) turns its payload into, before
// provider-intake.ts records it through recordFeedback. Pure.
import { MESSAGE_MAX_CHARS, type ReportOutcome } from './outcome';
import { mailIdOfMessageId } from './return-path';

export const FEEDBACK_PROVIDERS = ['ses', 'sendgrid', 'mailgun', 'postmark'] as const;
export type FeedbackProvider = (typeof FEEDBACK_PROVIDERS)[number];

export interface ProviderEvent {
  /** The provider's id of the event (of the bounce, not of the delivery): the same event taken twice records one. */
  id: string;
  /** Herald's mail_id, when the provider hands it back as metadata (Postmark). */
  mailId?: string;
  /** Message-IDs that may be the one Herald set (`<mail_…@mta host>`), in the order they are tried. */
  messageIds?: string[];
  /** Whom the provider says it is about; an event about another address than the message's recipient records nothing. */
  recipients?: string[];
  outcome: ReportOutcome;
}

/** The mail_id an event names: its metadata, else the first of its Message-IDs that is Herald's. */
export function mailIdOfEvent(event: ProviderEvent): string | undefined {
  if (event.mailId !== undefined) return /^mail_[0-9a-z]{1,30}$/.test(event.mailId) ? event.mailId : undefined;
  for (const messageId of event.messageIds ?? []) {
    const mailId = mailIdOfMessageId(messageId);
    if (mailId) return mailId;
  }
  return undefined;
}

/** The outcome of an event for the message's recipient: nothing when the provider names other addresses only. */
export function outcomeForRecipient(event: ProviderEvent, email: string): ReportOutcome {
  const named = (event.recipients ?? []).map((r) => r.trim().toLowerCase()).filter((r) => r !== '');
  if (named.length > 0 && !named.includes(email.trim().toLowerCase())) {
    return { kind: 'none', why: 'the event is about another recipient of the message' };
  }
  return event.outcome;
}

/** A bounce's `message` from the provider's words: the non-empty parts, one per line, whitespace folded, bounded. */
export function providerMessage(...parts: Array<string | number | undefined | null>): string {
  const lines = [...new Set(parts.map((part) => (part === undefined || part === null ? '' : String(part).replace(/\s+/g, ' ').trim())).filter((p) => p !== ''))];
  const text = lines.join('\n');
  return text.length > MESSAGE_MAX_CHARS ? `${text.slice(0, MESSAGE_MAX_CHARS - 1)}…` : text;
}

/** The value as a string when it is one (payload fields are read without trusting their types). */
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);

/** The value as a plain object, or undefined. */
export const obj = (value: unknown): Record<string, unknown> | undefined =>
  (typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined);
