// Per-message return paths (VERP). Every message leaves with its own envelope sender on the bounce
// domain, `<mail id>-<signature>@<bounce domain>`, so a bounce that comes back names the message
// it is about without Herald having to trust anything inside the report. The signature (HMAC-SHA256
// with the service's tracking key, under a label of its own so it is never a valid tracking-token
// signature, truncated to 80 bits) makes the addresses unforgeable: a report to an address Herald
// did not make is refused, so nobody can bounce or suppress an address of their choosing.
//
// The address names the mail_id only: an account name (up to 40 characters) and a mail_id (up to
// 25) would not fit a local part's 64 characters beside a signature. A mail_id is unique across
// accounts (the send ledger's _id), so the ledger row it names gives the account.
import { createHmac, timingSafeEqual } from 'node:crypto';

const LABEL = 'herald-return-path\u0000';
const MAIL_ID = /^mail_([0-9a-z]{1,30})$/;
const LOCAL_PART = /^([0-9a-z]{1,30})-([0-9a-f]{20})$/;
const SIGNATURE_BYTES = 10;

/**
 * Fixed mailboxes of the bounce domain, taken without a signature: `fbl` is the address to give
 * mailbox providers' feedback loops (complaint reports, RFC 5965); `abuse` and `postmaster` are the
 * role addresses reports also go to (postmaster is one every mail domain must take, RFC 5321).
 */
export const REPORT_MAILBOXES: readonly string[] = ['fbl', 'abuse', 'postmaster'];
export const COMPLAINT_MAILBOX = 'fbl';

/** The bounce domain when none is configured: the same rule as composition/config.ts (bounces.<mta host>). */
export function defaultBounceDomain(mtaHost: string): string {
  return `bounces.${mtaHost.includes('.') ? mtaHost : `${mtaHost}.localdomain`}`.toLowerCase();
}

const signatureOf = (core: string, secret: Buffer) => createHmac('sha256', secret).update(LABEL + core).digest().subarray(0, SIGNATURE_BYTES);

/** The envelope sender of the message `mailId` (lowercase letters, digits and one dash before the @). */
export function returnPathOf(mailId: string, secret: Buffer, bounceDomain: string): string {
  const core = MAIL_ID.exec(mailId)?.[1];
  if (!core) throw new Error(`not a mail id: ${mailId}`);
  return `${core}-${signatureOf(core, secret).toString('hex')}@${bounceDomain}`;
}

/**
 * What an address on the bounce domain is: a message's return path (its mail_id, the signature
 * checked), one of the fixed report mailboxes, or `forged` (anything else: a made-up or altered
 * return path, an unknown mailbox). Undefined for an address outside the bounce domain.
 */
export type BounceAddress = { kind: 'message'; mailId: string } | { kind: 'mailbox'; name: string } | { kind: 'forged' };

export function readBounceAddress(address: string, secret: Buffer, bounceDomain: string): BounceAddress | undefined {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== bounceDomain.toLowerCase()) return undefined;
  // Local parts are matched without case: some MTAs change it, and Herald's are all lowercase.
  const local = address.slice(0, at).toLowerCase();
  if (REPORT_MAILBOXES.includes(local)) return { kind: 'mailbox', name: local };
  const parts = LOCAL_PART.exec(local);
  if (!parts) return { kind: 'forged' };
  const [, core, signature] = parts;
  return timingSafeEqual(Buffer.from(signature, 'hex'), signatureOf(core, secret)) ? { kind: 'message', mailId: `mail_${core}` } : { kind: 'forged' };
}

/** Whether the address is on the bounce domain (without checking anything else). */
export function isOnBounceDomain(address: string, bounceDomain: string): boolean {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase() === bounceDomain.toLowerCase();
}

/** The mail_id a Herald Message-ID (`<mail_…@mta host>`, core/sending/plan.ts messageIdOf) names. */
export function mailIdOfMessageId(messageId: string | undefined): string | undefined {
  const match = /^\s*<?\s*(mail_[0-9a-z]{1,30})@[^\s>]+>?\s*$/i.exec(messageId ?? '');
  return match ? match[1].toLowerCase() : undefined;
}
