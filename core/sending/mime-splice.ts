// MIME built once per content, per-recipient parts spliced in. Every copy of one request shares
// its sender, reply-to, MIME structure and attachments (often most of the bytes), so nodemailer
// composes that skeleton once, with a marker as the content of the HTML and text parts. Each copy
// is then the recipient's own
// header lines (To, Cc, Subject, Message-ID, the client's extra headers), encoded and folded by
// nodemailer's own header encoder, the skeleton's shared header lines, and the skeleton's body
// with each part's rendering where its marker was: as it is (7bit) when it is ASCII with short
// lines, as most HTML mail is, else base64. Not quoted-printable: Node encodes base64 natively,
// ~15 µs for a 15 KB part against ~130 µs for nodemailer's QP. The relay transport handles every
// byte of a message in JavaScript (dot-stuffing), so smaller messages are faster to send.
//
// A skeleton without attachments depends only on its sender, reply-to and parts, its boundary
// and Date aside: nodemailer composes it once per such shape (~0.3 ms of streams and random
// bytes), and each request's skeleton is that text with the request's own random boundary and
// the time, byte for byte what nodemailer would have written.
import { randomBytes } from 'node:crypto';
import type { SendMailOptions } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { foldLines } from 'nodemailer/lib/mime-funcs';
import MimeNode from 'nodemailer/lib/mime-node';
import { encode as base64Encode } from 'nodemailer/lib/base64';

type MailAddress = string | { name: string; address: string };

/** What every copy of a content shares. */
export interface SharedParts {
  from: MailAddress;
  replyTo?: MailAddress;
  /** The Date header of every copy (nodemailer writes the time of composing without it). */
  date?: Date;
  hasHtml: boolean;
  hasText: boolean;
  attachments?: SendMailOptions['attachments'];
}

/** What one copy has of its own. Header values are one line (the renderer guarantees it). */
export interface CopyParts {
  to?: MailAddress;
  cc?: MailAddress[];
  subject?: string;
  messageId: string;
  html?: string;
  text?: string;
  headers?: Record<string, string>;
  /** Header lines written as they are, folds and all (an SMTP submission's, as its client wrote them; CRLF line ends). */
  headerLines?: string[];
}

export interface MimeSkeleton {
  /** The whole message of one copy, ready for the relay (DKIM signs it on the way). */
  build(copy: CopyParts): Buffer;
}

const CRLF = '\r\n';
/** Per-copy headers the skeleton must not carry (nodemailer adds a Message-ID of its own). */
const PER_COPY = new Set(['message-id', 'to', 'cc', 'subject']);

/** A skeleton's text before the copies: its shared header lines and body, the parts' markers in it. */
interface SharedText { shared: string; htmlMarker: string; textMarker: string }

/** The composed shapes (sender, reply-to, parts) of skeletons without attachments, by shape. */
const shapes = new Map<string, Promise<SharedText>>();
const MAX_SHAPES = 1000;
/** The boundary a shape is composed with, replaced by each request's own. */
const SHAPE_BOUNDARY = randomBytes(8).toString('hex');
/** The Date a shape is composed with, replaced by the time of each request (a header line: never the first, From is). */
const SHAPE_DATE_LINE = `${CRLF}Date: ${mimeDate(new Date(0))}`;

/**
 * The MIME every copy shares. Its multipart boundary is drawn as nodemailer draws it (8 random
 * bytes in hex), and its Date is now (or `common.date`).
 */
export async function buildSkeleton(common: SharedParts): Promise<MimeSkeleton> {
  const boundary = randomBytes(8).toString('hex');
  if (common.date || (common.attachments?.length ?? 0) > 0) return spliceable(await composeShared(common, boundary));
  const shape = await composedShape(common);
  const shared = shape.shared.replaceAll(`_NmP-${SHAPE_BOUNDARY}-Part_`, `_NmP-${boundary}-Part_`).replace(SHAPE_DATE_LINE, `${CRLF}Date: ${mimeDate(new Date())}`);
  return spliceable({ ...shape, shared });
}

/** The shape of `common` (which has no attachments and no date), composed on first use. */
function composedShape(common: SharedParts): Promise<SharedText> {
  const key = JSON.stringify([common.from, common.replyTo ?? null, common.hasHtml, common.hasText]);
  let shape = shapes.get(key);
  if (!shape) {
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shape = composeShared({ ...common, date: new Date(0) }, SHAPE_BOUNDARY);
    shapes.set(key, shape);
    shape.catch(() => shapes.delete(key));
  }
  return shape;
}

/** The Date header's value, as nodemailer writes it. */
function mimeDate(date: Date): string {
  return date.toUTCString().replace(/GMT/, '+0000');
}

/**
 * Composes the shared MIME with nodemailer. A part's marker is 42 random-bearing characters, so
 * its base64 form is 56 characters on one line, found as it is in the skeleton (96 random bits:
 * it cannot occur elsewhere by chance).
 */
async function composeShared(common: SharedParts, baseBoundary: string): Promise<SharedText> {
  const random = randomBytes(12).toString('hex');
  const htmlMarker = base64Encode(Buffer.from(`HERALDSPLICE${random}HTML00`));
  const textMarker = base64Encode(Buffer.from(`HERALDSPLICE${random}TEXT00`));
  const part = (marker: string, contentType: string) => ({
    content: Buffer.from(marker, 'base64'), contentType, contentTransferEncoding: 'base64',
  });
  const compiled = new MailComposer({
    from: common.from,
    replyTo: common.replyTo,
    ...(common.date ? { date: common.date } : {}),
    baseBoundary,
    // The charset is fixed here: nodemailer would only add it for non-ASCII content.
    ...(common.hasHtml ? { html: part(htmlMarker, 'text/html; charset=utf-8') } : {}),
    ...(common.hasText ? { text: part(textMarker, 'text/plain; charset=utf-8') } : {}),
    attachments: common.attachments,
  }).compile();
  const skeleton = (await compiled.build()).toString('latin1');
  const headerEnd = skeleton.indexOf(CRLF + CRLF);
  const sharedHeaders = unfoldedLines(skeleton.slice(0, headerEnd))
    .filter((line) => !PER_COPY.has(line.slice(0, line.indexOf(':')).trim().toLowerCase()))
    .join(CRLF);
  // The shared header lines and the body: a part's Content-Transfer-Encoding is among the former
  // when the message is that part alone.
  return { shared: sharedHeaders + skeleton.slice(headerEnd), htmlMarker, textMarker };
}

/** The skeleton that splices each copy's parts into `shared`, where the markers are. */
function spliceable({ shared, htmlMarker, textMarker }: SharedText): MimeSkeleton {
  // The body cut at its markers: fixed pieces with a slot between each two, for each part its
  // Content-Transfer-Encoding (the word after the header's name, in the part's own header block)
  // and its content.
  const pieces: string[] = [];
  const slots: Array<{ part: 'html' | 'text'; is: 'encoding' | 'content' }> = [];
  let rest = shared;
  for (;;) {
    const at = [rest.indexOf(htmlMarker), rest.indexOf(textMarker)].filter((i) => i >= 0).sort((a, b) => a - b)[0];
    if (at === undefined) break;
    const part = rest.startsWith(htmlMarker, at) ? 'html' : 'text';
    const header = rest.lastIndexOf(ENCODING_HEADER, at);
    if (header < 0) throw new Error('MIME skeleton: a part without its Content-Transfer-Encoding header');
    const encodingAt = header + ENCODING_HEADER.length - 'base64'.length;
    pieces.push(rest.slice(0, encodingAt), rest.slice(encodingAt + 'base64'.length, at));
    slots.push({ part, is: 'encoding' }, { part, is: 'content' });
    rest = rest.slice(at + htmlMarker.length);
  }
  pieces.push(rest);
  const fixed = pieces.map((piece) => Buffer.from(piece, 'latin1'));
  // A message of one part ends with its content, and the line end after it would become part of
  // a 7bit content: harmless white space in HTML, but a text part alone always goes base64 (in a
  // multipart, the line end belongs to the boundary).
  const multipart = /^Content-Type: multipart\//im.test(shared.slice(0, shared.indexOf(CRLF + CRLF)));

  return {
    build(copy) {
      const head = [
        ...(copy.to !== undefined ? [headerLine('To', copy.to)] : []),
        ...(copy.cc && copy.cc.length > 0 ? [headerLine('Cc', copy.cc)] : []),
        ...(copy.subject !== undefined ? [headerLine('Subject', copy.subject)] : []),
        headerLine('Message-ID', copy.messageId),
        ...Object.entries(copy.headers ?? {}).map(([name, value]) => headerLine(name, value)),
        ...(copy.headerLines ?? []),
      ].join(CRLF) + CRLF;
      const parts: Buffer[] = [Buffer.from(head), fixed[0]];
      const asIs = { html: isSevenBit(copy.html ?? ''), text: multipart && isSevenBit(copy.text ?? '') };
      slots.forEach(({ part, is }, index) => {
        const text = copy[part] ?? '';
        const slot = is === 'encoding' ? (asIs[part] ? '7bit' : 'base64') : (asIs[part] ? text : base64Lines(text));
        parts.push(Buffer.from(slot, 'latin1'), fixed[index + 1]);
      });
      return Buffer.concat(parts);
    },
  };
}

const ENCODING_HEADER = 'Content-Transfer-Encoding: base64';

/**
 * Whether a part goes as it is (7bit): ASCII without NUL, lines within SMTP's 998 octets. Most
 * HTML mail is (non-ASCII letters as entities): then it is not encoded at all, and a third
 * smaller than in base64. Anything else goes base64.
 */
function isSevenBit(text: string): boolean {
  // ASCII: as many UTF-8 bytes as UTF-16 units (a native count, several times faster than a regex over 30 KB); NUL is what 7bit may not carry.
  if (Buffer.byteLength(text) !== text.length || text.includes('\0')) return false;
  for (let start = 0; ;) {
    const end = text.indexOf('\n', start);
    if ((end < 0 ? text.length : end) - start > 997) return false;
    if (end < 0) return true;
    start = end + 1;
  }
}

/**
 * One node's header encoder for every header: MimeNode.encodeHeaderValue makes a node per call,
 * and a node draws random bytes for its boundary (~15 µs a header line, for nothing).
 */
const HEADER_ENCODER = new MimeNode(false);

/** One header as nodemailer writes it: the value encoded (address lists, non-ASCII words), the line folded. */
function headerLine(name: string, value: MailAddress | MailAddress[] | string): string {
  return foldLines(`${name}: ${HEADER_ENCODER.encodeHeaderValue(name, value as never)}`, 76);
}

/** Base64 in lines of 76 characters, as MIME wants it. */
function base64Lines(text: string): string {
  const encoded = base64Encode(Buffer.from(text));
  const lines: string[] = [];
  for (let at = 0; at < encoded.length; at += 76) lines.push(encoded.slice(at, at + 76));
  return lines.join(CRLF);
}

/** A header block's lines, each with its continuation lines. */
function unfoldedLines(block: string): string[] {
  const lines: string[] = [];
  for (const line of block.split(CRLF)) {
    if (/^[ \t]/.test(line) && lines.length > 0) lines[lines.length - 1] += CRLF + line;
    else lines.push(line);
  }
  return lines;
}
