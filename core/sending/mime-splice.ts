// MIME built once per content, per-recipient parts spliced in. Every copy of one request shares
// its sender, reply-to, MIME structure and attachments (often most of the bytes), so nodemailer
// composes that skeleton once, with a marker as the content of the HTML and text parts. Each copy
// is then the recipient's own
// header lines (To, Cc, Subject, Message-ID, the client's extra headers), encoded and folded by
// nodemailer's own header encoder, the skeleton's shared header lines, and the skeleton's body
// with each part's rendering base64-encoded where its marker was. Base64, not quoted-printable:
// Node encodes it natively, ~15 µs for a 15 KB part against ~130 µs for nodemailer's QP.
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
  hasHtml: boolean;
  hasText: boolean;
  attachments?: SendMailOptions['attachments'];
}

/** What one copy has of its own. Header values are one line (the renderer guarantees it). */
export interface CopyParts {
  to: MailAddress;
  cc?: MailAddress[];
  subject: string;
  messageId: string;
  html?: string;
  text?: string;
  headers?: Record<string, string>;
}

export interface MimeSkeleton {
  /** The whole message of one copy, ready for the relay (DKIM signs it on the way). */
  build(copy: CopyParts): Buffer;
}

const CRLF = '\r\n';
/** Per-copy headers the skeleton must not carry (nodemailer adds a Message-ID of its own). */
const PER_COPY = new Set(['message-id', 'to', 'cc', 'subject']);

/**
 * Composes the shared MIME once. A part's marker is 42 random-bearing characters, so its base64
 * form is 56 characters on one line, found as it is in the skeleton (96 random bits: it cannot
 * occur elsewhere by chance).
 */
export async function buildSkeleton(shared: SharedParts): Promise<MimeSkeleton> {
  const random = randomBytes(12).toString('hex');
  const htmlMarker = base64Encode(Buffer.from(`HERALDSPLICE${random}HTML00`));
  const textMarker = base64Encode(Buffer.from(`HERALDSPLICE${random}TEXT00`));
  const part = (marker: string, contentType: string) => ({
    content: Buffer.from(marker, 'base64'), contentType, contentTransferEncoding: 'base64',
  });
  const compiled = new MailComposer({
    from: shared.from,
    replyTo: shared.replyTo,
    // The charset is fixed here: nodemailer would only add it for non-ASCII content.
    ...(shared.hasHtml ? { html: part(htmlMarker, 'text/html; charset=utf-8') } : {}),
    ...(shared.hasText ? { text: part(textMarker, 'text/plain; charset=utf-8') } : {}),
    attachments: shared.attachments,
  }).compile();
  const skeleton = (await compiled.build()).toString('latin1');
  const headerEnd = skeleton.indexOf(CRLF + CRLF);
  const sharedHeaders = unfoldedLines(skeleton.slice(0, headerEnd))
    .filter((line) => !PER_COPY.has(line.slice(0, line.indexOf(':')).trim().toLowerCase()))
    .join(CRLF);
  const body = skeleton.slice(headerEnd);
  // The body cut at its markers: fixed pieces with a part's slot between each two.
  const pieces: string[] = [];
  const slots: Array<'html' | 'text'> = [];
  let rest = body;
  for (;;) {
    const at = [rest.indexOf(htmlMarker), rest.indexOf(textMarker)].filter((i) => i >= 0).sort((a, b) => a - b)[0];
    if (at === undefined) break;
    const isHtml = rest.startsWith(htmlMarker, at);
    pieces.push(rest.slice(0, at));
    slots.push(isHtml ? 'html' : 'text');
    rest = rest.slice(at + (isHtml ? htmlMarker : textMarker).length);
  }
  pieces.push(rest);
  const fixed = pieces.map((piece) => Buffer.from(piece, 'latin1'));
  const sharedHead = Buffer.from(sharedHeaders, 'latin1');

  return {
    build(copy) {
      const head = [
        headerLine('To', copy.to),
        ...(copy.cc && copy.cc.length > 0 ? [headerLine('Cc', copy.cc)] : []),
        headerLine('Subject', copy.subject),
        headerLine('Message-ID', copy.messageId),
        ...Object.entries(copy.headers ?? {}).map(([name, value]) => headerLine(name, value)),
      ].join(CRLF) + CRLF;
      const parts: Buffer[] = [Buffer.from(head), sharedHead, fixed[0]];
      slots.forEach((slot, index) => {
        parts.push(Buffer.from(base64Lines(copy[slot] ?? ''), 'latin1'), fixed[index + 1]);
      });
      return Buffer.concat(parts);
    },
  };
}

/** One header as nodemailer writes it: the value encoded (address lists, non-ASCII words), the line folded. */
function headerLine(name: string, value: MailAddress | MailAddress[] | string): string {
  return foldLines(`${name}: ${MimeNode.encodeHeaderValue(name, value as never)}`, 76);
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
