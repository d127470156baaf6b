// The accepted transactional send request, as validated by the API and stored as the claim check.
import { Binary } from 'mongodb';
import type { SendRequestDoc } from '../store';
import type { Attachment } from './attachments';

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
}

/** `<account>_transactional_<batch_code>`; requests without a code get their own id as the code. */
export function batchId(account: string, requestId: string, batchCode: string | undefined): string {
  return `${account}_transactional_${batchCode || requestId}`;
}

/** A message accepted over SMTP: sent as submitted, one copy per envelope recipient. */
export interface SmtpSubmission { mailFrom: string; rcptTo: string[]; raw: Buffer }

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
export function toStoredFields(request: AcceptedRequest): Pick<SendRequestDoc, 'account' | 'source' | 'payload' | 'raw' | 'purpose'> {
  if (request.source === 'http') {
    return { account: request.account, source: 'http', payload: JSON.stringify(request.body), ...(request.purpose ? { purpose: request.purpose } : {}) };
  }
  const { mailFrom, rcptTo, raw } = request.submission;
  return { account: request.account, source: 'smtp', payload: JSON.stringify({ mailFrom, rcptTo }), raw: new Binary(raw) };
}

export function readHttpBody(doc: SendRequestDoc): SendRequestBody {
  return JSON.parse(doc.payload) as SendRequestBody;
}

export function readSmtpSubmission(doc: SendRequestDoc): SmtpSubmission {
  const { mailFrom, rcptTo } = JSON.parse(doc.payload) as Omit<SmtpSubmission, 'raw'>;
  return { mailFrom, rcptTo, raw: Buffer.from(doc.raw?.buffer ?? []) };
}
