// The signed tokens of tracking links: `{publicUrl}/t/{kind}/{token}`, kind o (open pixel),
// c (click), v (online version), u (unsubscribe), s (share: `/t/s/{network}/{token}`, the network
// from a fixed list, not signed: every network's share points at the same online version). A
// token is trusted without a lookup, but for a click's table link (below):
//
//   o, v, u, s:  <message>.<sig(kind, message)>
//   c:           <message>.<sig(c, message)>.<link>.<sig(link, requestId)>            the link carried
//   c:           <message>.<sig(c, message)>.<linkId>.<sig(linkId, account, requestId)>  a table link
//
// <message> is base64url JSON of [account, requestId, index]: the message is the recipients[index]
// element of that stored request, where its endpoint finds the rest (mail_id, batch id, email, tags,
// custom_args). It is repeated in every link of a message, so it stays this short. <link> is of
// {i: link_id, t: target, r?: reported url (absent: the target), n?: interests}. A sig is
// HMAC-SHA256 over the kind and the part, truncated to 128 bits, base64url. The message is signed
// once per message and kind, the link once per request and target (so rendering stays fast), and
// a link's signature names its request: a link part is valid only with a message of its request.
//
// A table link is a campaign send's (core/campaigns/plan.ts): the links whose target is the same
// in every message of the request are stored once, as its link table (./link-tables.ts, the same
// fields by link_id), before any message is sent, and a token names its entry by the link_id in
// decimal (a carried <link> is base64url JSON, never all digits): a link of the campaign-send
// benchmark is ~120 characters instead of ~350. Its signature covers the account too (a campaign's request id is unique only within its
// account). The click endpoint reads the entry, so a table link redirects to its table's target
// and records the same fields as a carried one; an unknown table or link_id is refused like a
// forged token. Links whose target differs per message (a substitution in the href), and every
// link of transactional and automation mail, carry their link.
//
// A click redirects only to a target signed into its link or stored in its request's table, so
// /t/c/ is no open redirect.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { LinkEntry } from '../../../adapters/store/store';

export type TrackingKind = 'o' | 'c' | 'v' | 'u' | 's';

/** The kinds whose token names a message only (no link part). */
export type MessageKind = Exclude<TrackingKind, 'c'>;

/**
 * One message as the renderer knows it. `index` is its recipients[] element. `seqMailId`: its
 * mail_id is a campaign round's prefix and seq (core/campaigns/model.ts: campaignMailIds), said in
 * its tokens so that a campaign message sent before that formula still names its own mail_id.
 */
export interface MessageIdentity { account: string; requestId: string; index: number; mailId: string; batchId: string; email: string; seqMailId?: true }

/** What a token names: the message's stored request and its recipients[] element (and how its mail_id is made). */
export type MessageRef = Pick<MessageIdentity, 'account' | 'requestId' | 'index' | 'seqMailId'>;

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

/** What a verified token names, a click's link resolved: what its hit records. */
export type TrackingPayload = { kind: MessageKind; message: MessageRef } | { kind: 'c'; message: MessageRef; link: TrackedLink };

/** A click token whose link is an entry of its request's link table: `tableLink` is the link_id. */
export interface TableClick { kind: 'c'; message: MessageRef; tableLink: number }

/** A click token as verified: its link carried, or named in its request's table (resolved by core/tracking/verified-tokens.ts). */
export type ClickToken = Extract<TrackingPayload, { kind: 'c' }> | TableClick;

const SIG_BYTES = 16;

/** base64url of the first 128 bits of HMAC-SHA256(secret, label \n part). */
export function sign(secret: Buffer, label: string, part: string): string {
  return createHmac('sha256', secret).update(`${label}\n${part}`).digest().subarray(0, SIG_BYTES).toString('base64url');
}

const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The <message> part of a message's tokens. */
export function messagePart(m: MessageRef): string {
  return base64Json(m.seqMailId ? [m.account, m.requestId, m.index, 1] : [m.account, m.requestId, m.index]);
}

/** The token of kind `kind` for a message part (for a click, without its link part). */
export function messageToken(secret: Buffer, kind: TrackingKind, message: string): string {
  return `${message}.${sign(secret, kind, message)}`;
}

/** A link's stored fields: a carried link part's JSON, a link table's entry. */
export function linkFields(link: TrackedLink): LinkEntry {
  const { linkId, target, url, interests } = link;
  return { i: linkId, t: target, ...(url === target ? {} : { r: url }), ...(interests.length > 0 ? { n: interests } : {}) };
}

/** The <link> part of a click token; signed with linkSignature. */
export function linkPart(link: TrackedLink): string {
  return base64Json(linkFields(link));
}

export function linkSignature(secret: Buffer, requestId: string, link: string): string {
  return sign(secret, `l\n${requestId}`, link);
}

/** The signature of a table link's part (its link_id in decimal): the request's and its account's. */
export function tableLinkSignature(secret: Buffer, account: string, requestId: string, linkId: string): string {
  return sign(secret, `t\n${account}\n${requestId}`, linkId);
}

/** A table link's part: a link_id, in decimal without leading zeros (one text per id). */
const TABLE_LINK = /^(?:0|[1-9][0-9]{0,8})$/;

/** The payload of a token of `kind` signed with `secret`; null when it is malformed, forged or altered. */
export function verifyTrackingToken(secret: Buffer, kind: 'c', token: string): ClickToken | null;
export function verifyTrackingToken(secret: Buffer, kind: MessageKind, token: string): Extract<TrackingPayload, { kind: MessageKind }> | null;
export function verifyTrackingToken(secret: Buffer, kind: TrackingKind, token: string): TrackingPayload | TableClick | null;
export function verifyTrackingToken(secret: Buffer, kind: TrackingKind, token: string): TrackingPayload | TableClick | null {
  if (typeof token !== 'string' || !['o', 'c', 'v', 'u', 's'].includes(kind)) return null;
  const parts = token.split('.');
  if (parts.length !== (kind === 'c' ? 4 : 2)) return null;
  const [messageText, messageSig, linkText, linkSig] = parts;
  if (!sameSignature(sign(secret, kind, messageText), messageSig)) return null;
  const message = readMessage(messageText);
  if (!message) return null;
  if (kind !== 'c') return { kind, message };
  if (TABLE_LINK.test(linkText)) {
    if (!sameSignature(tableLinkSignature(secret, message.account, message.requestId, linkText), linkSig)) return null;
    return { kind, message, tableLink: Number(linkText) };
  }
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
  if (!Array.isArray(v) || v.length < 3 || v.length > 4) return null;
  const [account, requestId, index, form] = v as unknown[];
  if (!isText(account) || !isText(requestId) || !Number.isInteger(index) || (v.length === 4 && form !== 1)) return null;
  return form === 1 ? { account, requestId, index: index as number, seqMailId: true } : { account, requestId, index: index as number };
}

function readLink(text: string): TrackedLink | null {
  return readLinkFields(parseJson(text));
}

/** The link of stored fields (a carried link part's JSON, a link table's entry); null when they are not one. */
export function readLinkFields(value: unknown): TrackedLink | null {
  const v = value as { i?: unknown; t?: unknown; r?: unknown; n?: unknown } | undefined;
  if (typeof v !== 'object' || v === null || !Number.isInteger(v.i) || !isText(v.t)) return null;
  const url = v.r === undefined ? v.t : v.r;
  const interests = v.n === undefined ? [] : v.n;
  if (!isText(url) || !Array.isArray(interests) || !interests.every(isText)) return null;
  return { linkId: v.i as number, target: v.t, url, interests };
}
