// A message submitted over SMTP, read once at acceptance by a real MIME parser (mailparser): its
// From and Reply-To, HTML and text parts (decoded to text), attachments (checked as the HTTP
// API checks them) and the header lines Herald keeps as written. The copies Herald sends are
// built from this (core/sending/plan.ts), like those of an HTTP request: one per envelope
// recipient, with its own Message-ID and tracking links, the To and Cc headers as the client
// wrote them. Nothing in it is a template: `${x}` stays as written (the spec: no substitution).
import { simpleParser, type AddressObject, type HeaderLines } from 'mailparser';
import { errors } from '../shared/errors';
import { isEmailAddress } from '../shared/email-address';
import { checkAttachments, type Attachment } from './attachments';
import type { Address } from './request';

/** An attachment of a submitted message; `content_id` when the HTML shows it inline (`cid:`). */
export interface SmtpAttachment extends Attachment { content_id?: string }

export interface SmtpMessage {
  from: Address;
  replyTo?: Address;
  /** The Date header (ISO 8601), written into every copy. */
  date?: string;
  html?: string;
  text?: string;
  attachments?: SmtpAttachment[];
  /**
   * Header lines kept as written (To, Cc, Subject and the client's own), each with its folded
   * continuation lines, line ends as CRLF. Herald writes the others itself.
   */
  headerLines: string[];
}

/**
 * Headers Herald writes itself (the MIME structure, From, Reply-To, Date, Message-ID), never
 * forwards (Bcc, Return-Path), cannot keep valid (a DKIM signature of another message), or reads
 * (Idempotency-Key).
 */
const NOT_KEPT = new Set([
  'from', 'reply-to', 'date', 'message-id', 'mime-version', 'content-type', 'content-transfer-encoding', 'content-disposition',
  'content-id', 'content-description', 'bcc', 'return-path', 'dkim-signature', 'idempotency-key',
]);

/** What the message says beyond its content: the Idempotency-Key header, if any. */
export interface ReadSubmission { message: SmtpMessage; idempotencyKey?: string }

/**
 * Reads a submitted message. `mailFrom` (the envelope sender) stands in for a missing From
 * header. Throws bad_request (a 554 over SMTP) for what the HTTP API would refuse too: an
 * attachment outside the spec's formats, a From that is not an email address.
 */
export async function readSubmittedMessage(raw: Buffer, mailFrom: string): Promise<ReadSubmission> {
  // The parts as the client wrote them: no text made from the HTML (nor HTML from the text), which
  // would add a part the client did not send (and costs most of the parse).
  const parsed = await simpleParser(raw, { skipHtmlToText: true, skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true, keepCidLinks: true });
  const from = firstAddress(parsed.from) ?? (mailFrom ? { email: mailFrom } : undefined);
  if (!from || !isEmailAddress(from.email)) throw errors.badRequest('The message needs a From header with a valid email address');
  const replyTo = firstAddress(parsed.replyTo);
  const attachments: SmtpAttachment[] = parsed.attachments.map((attachment) => ({
    file_name: attachment.filename ?? '',
    mime_type: attachment.contentType,
    data: attachment.content.toString('base64'),
    ...(attachment.contentId && attachment.related ? contentIdOf(attachment.contentId) : {}),
  }));
  const problems = await checkAttachments(attachments);
  if (problems.length > 0) {
    const { index, message } = problems[0];
    throw errors.badRequest(`Attachment ${index + 1} (${attachments[index].file_name || 'without a name'}) is refused: ${message}`);
  }
  const idempotency = parsed.headers.get('idempotency-key');
  return {
    message: {
      from,
      ...(replyTo && isEmailAddress(replyTo.email) ? { replyTo } : {}),
      ...(parsed.date ? { date: parsed.date.toISOString() } : {}),
      ...(typeof parsed.html === 'string' ? { html: parsed.html } : {}),
      // skipHtmlToText leaves '' as the text of an HTML-only message: no text part then.
      ...(parsed.text !== undefined && (parsed.text !== '' || typeof parsed.html !== 'string') ? { text: parsed.text } : {}),
      ...(attachments.length > 0 ? { attachments } : {}),
      headerLines: keptLines(parsed.headerLines),
    },
    ...(typeof idempotency === 'string' && idempotency.trim() ? { idempotencyKey: idempotency.trim() } : {}),
  };
}

/** An inline attachment's Content-ID without its brackets, when it is one token (it is written back into a header). */
function contentIdOf(header: string): { content_id?: string } {
  const id = header.trim().replace(/^<|>$/g, '');
  return /^[\x21-\x7e]{1,250}$/.test(id) && !/[<>"]/.test(id) ? { content_id: id } : {};
}

function firstAddress(value: AddressObject | AddressObject[] | undefined): Address | undefined {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  const first = list.flatMap((object) => object.value).find((entry) => entry.address);
  return first?.address ? { email: first.address, ...(first.name ? { name: first.name } : {}) } : undefined;
}

/** The kept header lines, each line end (folds included) as CRLF, so nothing else can start a header. */
function keptLines(lines: HeaderLines): string[] {
  return lines
    .filter(({ key }) => !NOT_KEPT.has(key.toLowerCase()))
    .map(({ line }) => line.split(/\r?\n|\r/).filter((part, i) => i === 0 || /^[ \t]/.test(part)).join('\r\n'));
}
