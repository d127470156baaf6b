import type { SendMailOptions } from 'nodemailer';
import type { EventSubject } from '../events';
import { derivedId } from '../ids';
import type { SendRequestDoc } from '../store';
import { contentTypeOf } from './attachments';
import { batchId, readHttpBody, readSmtpSubmission, type Address, type SendRequestBody, type SmtpSubmission } from './request';
import { contentRenderer } from './personalise';

/** One message to send: a recipients[] element (with its cc/bcc) or one SMTP envelope recipient. */
export interface PlannedMessage {
  mailId: string;
  requestId: string;
  email: string;
  subject: EventSubject;
  mail: SendMailOptions;
}

export function messageIdOf(mailId: string, mtaHost: string): string {
  return `<${mailId}@${mtaHost}>`;
}

/**
 * An accepted request, read once: the envelope sender (DKIM signs for its domain), the ids of its
 * messages (derived from the request: stable across retries), and each message, built only when
 * asked for, so a retry builds only what the ledger does not show as done.
 */
export interface RequestPlan {
  sender: string;
  mailIds: string[];
  message(index: number): PlannedMessage;
}

export function planRequest(request: SendRequestDoc, mtaHost: string): RequestPlan {
  return request.source === 'smtp'
    ? planSmtp(request, readSmtpSubmission(request), mtaHost)
    : planHttp(request, readHttpBody(request), mtaHost);
}

const mailIdsOf = (request: SendRequestDoc, count: number) => Array.from({ length: count }, (_, index) => derivedId('mail', request._id, String(index)));

function subjectOf(request: SendRequestDoc, mailId: string, email: string, mtaHost: string, extra: Partial<EventSubject> = {}): EventSubject {
  return {
    account: request.account,
    batch_id: batchId(request.account, request._id, undefined),
    mail_id: mailId,
    email,
    sent_timestamp: new Date(),
    tags: [],
    custom_args: {},
    mta: mtaHost,
    ...extra,
  };
}

function planHttp(request: SendRequestDoc, body: SendRequestBody, mtaHost: string): RequestPlan {
  const mailIds = mailIdsOf(request, body.recipients.length);
  // Once per request: the attachments decoded, the templates compiled.
  const attachments = attachmentsOf(body);
  const render = contentRenderer(body);
  return {
    sender: body.from.email,
    mailIds,
    message(index) {
      const recipient = body.recipients[index];
      const mailId = mailIds[index];
      const copy = render(recipient);
      return {
        mailId,
        requestId: request._id,
        email: recipient.to.email,
        subject: subjectOf(request, mailId, recipient.to.email, mtaHost, {
          batch_id: batchId(request.account, request._id, body.batch_code),
          tags: [...(body.tags ?? []), ...(recipient.tags ?? [])],
          custom_args: recipient.custom_args ?? {},
        }),
        mail: {
          messageId: messageIdOf(mailId, mtaHost),
          from: formatAddress(body.from),
          replyTo: body.reply_to && formatAddress(body.reply_to),
          to: formatAddress(recipient.to),
          cc: recipient.cc?.map(formatAddress),
          bcc: recipient.bcc?.map(formatAddress),
          subject: copy.subject,
          html: copy.html,
          text: copy.text,
          headers: copy.headers,
          attachments,
        },
      };
    },
  };
}

function planSmtp(request: SendRequestDoc, submission: SmtpSubmission, mtaHost: string): RequestPlan {
  const { raw } = submission;
  const mailIds = mailIdsOf(request, submission.rcptTo.length);
  return {
    sender: submission.mailFrom,
    mailIds,
    message(index) {
      const email = submission.rcptTo[index];
      const mailId = mailIds[index];
      return {
        mailId,
        requestId: request._id,
        email,
        subject: subjectOf(request, mailId, email, mtaHost),
        mail: { envelope: { from: submission.mailFrom, to: [email] }, raw },
      };
    },
  };
}

/**
 * The request's attachments, decoded once and shared by all its messages (nodemailer only reads
 * them). Checked at the door, so the name is safe in headers and names the content's format;
 * the Content-Type is that format's own, never the client's string.
 */
function attachmentsOf(body: SendRequestBody): SendMailOptions['attachments'] {
  return body.attachments?.map((attachment) => ({
    filename: attachment.file_name,
    content: Buffer.from(attachment.data, 'base64'),
    contentType: contentTypeOf(attachment.file_name),
  }));
}

function formatAddress(address: Address) {
  return address.name ? { name: address.name, address: address.email } : address.email;
}
