// The signed tokens of tracking links: `{publicUrl}/t/{kind}/{token}`, kind o (open pixel),
// c (click), v (online version), u (unsubscribe), s (share: `/t/s/{network}/{token}`, the network
// from a fixed list, not signed: every network's share points at the same online version). A
// token is trusted without a lookup:
//
//   o, v, u, s:  <message>.<sig(kind, message)>
//   c:        <message>.<sig(c, message)>.<link>.<sig(link, requestId)>
//
// <message> is base64url JSON of [account, requestId, index]: the message is the recipients[index]
// element of that stored request, where its endpoint finds the rest (mail_id, batch id, email, tags,
// custom_args). It is repeated in every link of a message, so it stays this short. <link> is of
// {i: link_id, t: target, r?: reported url (absent: the target), n?: interests}. A sig is
// HMAC-SHA256 over the kind and the part, truncated to 128 bits, base64url. The message is signed
// once per message and kind, the link once per request and target (so rendering stays fast), and
// a link's signature names its request: a link part is valid only with a message of its request.
// A click redirects only to the target signed into its link, so /t/c/ is no open redirect.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type TrackingKind = 'o' | 'c' | 'v' | 'u' | 's';

/** The kinds whose token names a message only (no link part). */
export type MessageKind = Exclude<TrackingKind, 'c'>;

/** One message as the renderer knows it. `index` is its recipients[] element. */
export interface MessageIdentity { account: string; requestId: string; index: number; mailId: string; batchId: string; email: string }

/** What a token names: the message's stored request and its recipients[] element. */
export type MessageRef = Pick<MessageIdentity, 'account' | 'requestId' | 'index'>;

/** A tracked link as its click reports it. */
export interface TrackedLink {
  /** The link's index among the content's <a>/<area> hrefs, in source order. */
  linkId: number;
  /** Where the click redirects: the substituted URL, utm parameters added. */
  target: string;
  /** The URL the click reports: the template's href text, or with data-track-final-url the substituted URL. */
  url: string;
  /** data-interests of the link. */
  interests: string[];
}

export type TrackingPayload = { kind: MessageKind; message: MessageRef } | { kind: 'c'; message: MessageRef; link: TrackedLink };

const SIG_BYTES = 16;

/** base64url of the first 128 bits of HMAC-SHA256(secret, label \n part). */
export function sign(secret: Buffer, label: string, part: string): string {
  return createHmac('sha256', secret).update(`${label}\n${part}`).digest().subarray(0, SIG_BYTES).toString('base64url');
}

const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The <message> part of a message's tokens. */
export function messagePart(m: MessageRef): string {
  return base64Json([m.account, m.requestId, m.index]);
}

/** The token of kind `kind` for a message part (for a click, without its link part). */
export function messageToken(secret: Buffer, kind: TrackingKind, message: string): string {
  return `${message}.${sign(secret, kind, message)}`;
}

/** The <link> part of a click token; signed with linkSignature. */
export function linkPart(link: TrackedLink): string {
  const { linkId, target, url, interests } = link;
  return base64Json({ i: linkId, t: target, ...(url === target ? {} : { r: url }), ...(interests.length > 0 ? { n: interests } : {}) });
}

export function linkSignature(secret: Buffer, requestId: string, link: string): string {
  return sign(secret, `l\n${requestId}`, link);
}

/** The payload of a token of `kind` signed with `secret`; null when it is malformed, forged or altered. */
export function verifyTrackingToken(secret: Buffer, kind: 'c', token: string): Extract<TrackingPayload, { kind: 'c' }> | null;
export function verifyTrackingToken(secret: Buffer, kind: MessageKind, token: string): Extract<TrackingPayload, { kind: MessageKind }> | null;
export function verifyTrackingToken(secret: Buffer, kind: TrackingKind, token: string): TrackingPayload | null;
export function verifyTrackingToken(secret: Buffer, kind: TrackingKind, token: string): TrackingPayload | null {
  if (typeof token !== 'string' || !['o', 'c', 'v', 'u', 's'].includes(kind)) return null;
  const parts = token.split('.');
  if (parts.length !== (kind === 'c' ? 4 : 2)) return null;
  const [messageText, messageSig, linkText, linkSig] = parts;
  if (!sameSignature(sign(secret, kind, messageText), messageSig)) return null;
  const message = readMessage(messageText);
  if (!message) return null;
  if (kind !== 'c') return { kind, message };
  if (!sameSignature(linkSignature(secret, message.requestId, linkText), linkSig)) return null;
  const link = readLink(linkText);
  return link ? { kind, message, link } : null;
}

/** Constant-time comparison of an expected signature with a given one. */
function sameSignature(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

const isText = (v: unknown): v is string => typeof v === 'string';

// Signed parts are Herald's own; the shapes are still checked, so a bug or a changed format is
// a null and never a half-read payload.
function readMessage(text: string): MessageRef | null {
  const v = parseJson(text);
  if (!Array.isArray(v) || v.length !== 3) return null;
  const [account, requestId, index] = v as unknown[];
  if (!isText(account) || !isText(requestId) || !Number.isInteger(index)) return null;
  return { account, requestId, index: index as number };
}

function readLink(text: string): TrackedLink | null {
  const v = parseJson(text) as { i?: unknown; t?: unknown; r?: unknown; n?: unknown } | undefined;
  if (typeof v !== 'object' || v === null || !Number.isInteger(v.i) || !isText(v.t)) return null;
  const url = v.r === undefined ? v.t : v.r;
  const interests = v.n === undefined ? [] : v.n;
  if (!isText(url) || !Array.isArray(interests) || !interests.every(isText)) return null;
  return { linkId: v.i as number, target: v.t, url, interests };
}
