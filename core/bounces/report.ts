// A report that came back to the bounce domain, read with mailparser: a delivery status
// notification (DSN, RFC 3464: multipart/report; report-type=delivery-status) or a complaint
// (ARF, RFC 5965: multipart/report; report-type=feedback-report). Anything else (an
// out-of-office reply to the return path, a bounce in no standard format) is `other`.
//
// mailparser (3.9) gives the parts of a report this way, with `keepDeliveryStatus`: the
// human-readable part is `text` (text/html turned into text when there is no plain part);
// message/delivery-status, message/feedback-report and text/rfc822-headers are attachments; a
// returned message/rfc822 is an attachment too, unless it is marked `Content-Disposition: inline`
// (some feedback loops do), in which case mailparser merges it into `text` and its headers are not
// available: the report's Original-Mail-From (the return path) then names the message.
import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { addressOfField, readFieldGroups, type FieldGroup } from './report-fields';

/** What the report says of the message it is about (from the returned message or its headers). */
export interface ReportedMessage { messageId?: string; returnPath?: string }

/** One recipient group of a DSN: who, what happened, and why. */
export interface DsnRecipient {
  /** Final-Recipient and Original-Recipient, lowercase, when they are mail addresses. */
  finalRecipient?: string;
  originalRecipient?: string;
  /** failed, delayed, delivered, relayed or expanded (lowercase). */
  action: string;
  /** The enhanced status code (RFC 3463), e.g. 5.1.1. */
  status?: string;
  diagnosticCode?: string;
}

interface Common {
  /** Identifies the report itself (its Message-ID, else a digest of its bytes): the same report taken twice has the same id. */
  id: string;
  /** The human-readable part. */
  text: string;
  reported: ReportedMessage;
}

export type Report =
  | (Common & { kind: 'dsn'; recipients: DsnRecipient[] })
  | (Common & { kind: 'arf'; feedbackType: string; originalMailFrom?: string })
  | { kind: 'other'; id: string };

/** mailparser's options for reports: the delivery-status part kept apart from the text. */
export const REPORT_PARSER_OPTIONS = { keepDeliveryStatus: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true } as const;

const DELIVERY_STATUS = new Set(['message/delivery-status', 'message/global-delivery-status']);
const FEEDBACK_REPORT = 'message/feedback-report';
const RETURNED_MESSAGE = new Set(['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/global-headers']);

/** Parses the raw report and the headers of the message it returns. */
export async function parseReport(raw: Buffer): Promise<Report> {
  const parsed = await simpleParser(raw, REPORT_PARSER_OPTIONS);
  const returned = parsed.attachments.find((part) => RETURNED_MESSAGE.has(part.contentType.toLowerCase()));
  const reported = returned ? await simpleParser(returned.content, REPORT_PARSER_OPTIONS) : undefined;
  return readReport(parsed, reported, createHash('sha256').update(raw).digest('hex'));
}

/**
 * The report in `parsed` (mailparser's output with REPORT_PARSER_OPTIONS); `reported` is the
 * returned message or headers parsed on their own, `digest` identifies a report without a
 * Message-ID. Pure.
 */
export function readReport(parsed: ParsedMail, reported: ParsedMail | undefined, digest: string): Report {
  const id = parsed.messageId ? `message-id:${parsed.messageId}` : `sha256:${digest}`;
  const partOf = (types: (type: string) => boolean) => parsed.attachments.find((part) => types(part.contentType.toLowerCase()));
  const common = { id, text: parsed.text ?? '', reported: reportedMessage(reported) };

  const status = partOf((type) => DELIVERY_STATUS.has(type));
  if (status) {
    const [, ...perRecipient] = readFieldGroups(status.content.toString('utf8'));
    return { ...common, kind: 'dsn', recipients: perRecipient.map(dsnRecipient).filter((r): r is DsnRecipient => r !== undefined) };
  }
  const feedback = partOf((type) => type === FEEDBACK_REPORT);
  if (feedback) {
    const [fields = new Map<string, string>()] = readFieldGroups(feedback.content.toString('utf8'));
    return {
      ...common, kind: 'arf', feedbackType: (fields.get('feedback-type') ?? '').toLowerCase(), originalMailFrom: addressOfField(fields.get('original-mail-from')),
    };
  }
  return { kind: 'other', id };
}

function dsnRecipient(fields: FieldGroup): DsnRecipient | undefined {
  const action = fields.get('action')?.toLowerCase().split(/[\s(]/)[0];
  if (!action) return undefined; // a group without an Action is no recipient's
  return {
    action,
    finalRecipient: addressOfField(fields.get('final-recipient')),
    originalRecipient: addressOfField(fields.get('original-recipient')),
    status: /^[245]\.\d{1,3}\.\d{1,3}/.exec(fields.get('status') ?? '')?.[0],
    diagnosticCode: fields.get('diagnostic-code'),
  };
}

function reportedMessage(reported: ParsedMail | undefined): ReportedMessage {
  if (!reported) return {};
  const returnPath = reported.headers.get('return-path') as AddressObject | string | undefined;
  const address = typeof returnPath === 'string' ? returnPath : returnPath?.value[0]?.address;
  return {
    ...(reported.messageId ? { messageId: reported.messageId } : {}),
    ...(address ? { returnPath: address.replace(/^<|>$/g, '').toLowerCase() } : {}),
  };
}
