// The signature of every webhook request, so that a receiver can tell Herald's requests from
// forgeries and replays: `Herald-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`, the HMAC keyed
// with the endpoint's secret (the string's UTF-8 bytes) over "<t>.<raw body>". The time is inside
// the signed text, so a receiver that refuses an old t refuses a replayed request.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Herald-Signature';

/** A new endpoint secret: 192 random bits, with a prefix that says what it is. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

function hmacHex(secret: string, t: number, body: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.`).update(body).digest('hex');
}

/** The header value for a body sent at `nowMs`. */
export function signatureHeader(secret: string, body: string | Buffer, nowMs = Date.now()): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${hmacHex(secret, t, body)}`;
}

/**
 * What a receiver does (the README shows the same in a few lines): the header's v1 must be the
 * HMAC of "<t>.<raw body>" (compared in constant time) and t within `toleranceS` of now.
 */
export function verifySignature(secret: string, rawBody: string | Buffer, header: string | undefined, toleranceS = 300, nowMs = Date.now()): boolean {
  const parts = new Map((header ?? '').split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = Buffer.from(parts.get('v1') ?? '', 'hex');
  if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > toleranceS) return false;
  const expected = Buffer.from(hmacHex(secret, t, rawBody), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
