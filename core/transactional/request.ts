// The accepted transactional send request, as validated by the API and stored as the claim check.
import type { SendRequestDoc } from '../../adapters/store/store';
import type { Attachment } from './attachments';
import type { SmtpMessage } from './smtp-message';

export interface Address { email: string; name?: string }

export interface Recipient {
  to: Address;
  cc?: Address[];
  bcc?: Address[];
  substitutions?: Record<string, unknown>;
  custom_args?: Record<string, string>;
  tags?: string[];
}

export interface SendRequestBody {
  from: Address;
  reply_to?: Address;
  subject: string;
  content: { html?: string; text?: string };
  /** Checked by content at the door (./attachments.ts); `data` stays the client's base64 text. */
  attachments?: Attachment[];
  headers?: Record<string, string>;
  recipients: Recipient[];
  substitutions?: Record<string, unknown>;
  tags?: string[];
  batch_code?: string;
  /** ISO 8601 with Z or an offset: the request waits for it (launchInstant). */
  launch_date?: string;
  /** Open and click tracking (both on unless disabled) and the utm parameters added to every href. */
  tracking?: TrackingOptions;
}

export interface TrackingOptions {
  open?: { enable?: boolean };
  click?: { enable?: boolean };
  analytics?: Partial<Record<'utm_source' | 'utm_medium' | 'utm_campaign' | 'utm_content' | 'utm_term', string>>;
}

/** `<account>_transactional_<batch_code>`; requests without a code get their own id as the code. */
export function batchId(account: string, requestId: string, batchCode: string | undefined): string {
  return `${account}_transactional_${batchCode || requestId}`;
}

/** The instant of a launch_date the schema's pattern let through (NaN for impossible dates such as 2026-02-30). */
export function launchInstant(value: string): number {
  const iso = value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return NaN;
  // Date.parse rolls 2026-02-30 over to March: the local calendar date must come back unchanged.
  const zone = /([+-])(\d{2}):(\d{2})$/.exec(iso);
  const offsetMinutes = zone ? (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) : 0;
  return new Date(time + offsetMinutes * 60_000).toISOString().slice(0, 10) === value.slice(0, 10) ? time : NaN;
}

/** A message accepted over SMTP (read by ./smtp-message.ts): one copy per envelope recipient. */
export interface SmtpSubmission { mailFrom: string; rcptTo: string[]; message: SmtpMessage }

/** The messages a request sends (what the monthly limit counts): one per recipients[] element or envelope recipient. */
export function messageCount(request: AcceptedRequest): number {
  return request.source === 'http' ? request.body.recipients.length : request.submission.rcptTo.length;
}

/** What the API or the SMTP listener accepted, before it is stored. */
export type AcceptedRequest =
  | { account: string; source: 'http'; body: SendRequestBody; purpose?: SendRequestDoc['purpose'] }
  | { account: string; source: 'smtp'; submission: SmtpSubmission };

/**
 * The stored form: the client's part as one JSON string. The store then holds only strings
 * and bytes of the client's, so no client-chosen nesting, key or operator reaches it as a
 * document (and a JSON string is also faster to store than a nested map: see bench store-rates).
 * Attachments stay in it as the client's base64 text: decoded only when the messages are built.
 */
export function toStoredFields(request: AcceptedRequest): Pick<SendRequestDoc, 'account' | 'source' | 'payload' | 'purpose'> {
  if (request.source === 'http') {
    return { account: request.account, source: 'http', payload: JSON.stringify(request.body), ...(request.purpose ? { purpose: request.purpose } : {}) };
  }
  return { account: request.account, source: 'smtp', payload: JSON.stringify(request.submission) };
}

export function readHttpBody(doc: SendRequestDoc): SendRequestBody {
  return JSON.parse(doc.payload) as SendRequestBody;
}

export function readSmtpSubmission(doc: SendRequestDoc): SmtpSubmission {
  return JSON.parse(doc.payload) as SmtpSubmission;
}
