// The accepted transactional send request, as validated by the API and stored as the claim check.

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
export interface SmtpSubmission { mailFrom: string; rcptTo: string[]; raw: string }
