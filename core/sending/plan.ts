import { isIP } from 'node:net';
import type { SendMailOptions } from 'nodemailer';
import type { EventSubject } from '../tracking/events';
import { derivedId } from '../shared/ids';
import { buildSkeleton, type MimeSkeleton } from './mime-splice';
import type { SendRequestDoc } from '../../adapters/store/store';
import { contentTypeOf } from '../transactional/attachments';
import { readHttpBody, readSmtpSubmission, type Address, type Recipient, type SendRequestBody, type SmtpSubmission } from '../transactional/request';
import { contentRenderer, type LinkContext, type MessageIdentity, type Personalised } from '../content/personalise';
import type { SmtpAttachment } from '../transactional/smtp-message';
import { MessageTokens, trackedHtmlRenderer } from '../content/tracking/rewrite';
import { textPartOf } from '../content/text-alternative';
import { htmlToText } from '../content/text-renderings';

/** One message to send: a recipients[] element (with its cc/bcc) or one SMTP envelope recipient. */
export interface PlannedMessage {
  mailId: string;
  requestId: string;
  /** The recipients[].to address (or the envelope recipient): the mail_id's owner and its events' `email`. */
  email: string;
  /** Copies of this message that go to cc and bcc (same copy, same mail_id). */
  copiesTo: string[];
  subject: EventSubject;
  /** Its Message-ID header's value (the ledger keeps it: providers' webhooks echo it). */
  messageId: string;
  /** The whole message for the relay, built when called (the copy rendered, its parts spliced into the shared MIME). */
  raw(): Buffer;
}

export function messageIdOf(mailId: string, mtaHost: string): string {
  return `<${mailId}@${mtaHost}>`;
}

/**
 * The host of a plan's Message-IDs: the MTA host Herald was given (HERALD_MTA_HOST, else its public
 * URL's host), unless that is a local name (`localhost`, a name without a dot, `*.localdomain`,
 * `*.local`, an IP address: npm start's defaults), which mailbox providers count against a message;
 * then the sender's own domain. The mail_id is the Message-ID's local part either way.
 */
export function messageIdHost(mtaHost: string, sender: string): string {
  const local = !mtaHost.includes('.') || /\.(localdomain|local|localhost)$/i.test(mtaHost) || isIP(mtaHost) !== 0;
  const domain = sender.slice(sender.lastIndexOf('@') + 1).toLowerCase();
  return local && domain.includes('.') ? domain : mtaHost;
}

/** What names a message besides its content: its ids and address (a MessageIdentity without its index). */
export type MessageNames = Omit<MessageIdentity, 'index'>;

/** What the events of a message carry besides its names (transactional: no mail_type, tags and custom_args of the request). */
export type SubjectExtras = Partial<Pick<EventSubject, 'tags' | 'custom_args' | 'mail_type'>>;

/**
 * A message of any sender (a request's recipient, a campaign's, an automation's): the subject
 * of its events (sent now, until the loop stamps it), and its bytes when `raw` is called.
 */
export function plannedMessage(
  names: MessageNames, mtaHost: string, raw: () => Buffer, extras: SubjectExtras & { copiesTo?: string[]; messageId?: string } = {},
): PlannedMessage {
  const { account, requestId, mailId, batchId, email } = names;
  return {
    mailId, requestId, email, copiesTo: extras.copiesTo ?? [], messageId: extras.messageId ?? messageIdOf(mailId, mtaHost),
    subject: {
      account, batch_id: batchId, mail_id: mailId, email, sent_timestamp: new Date(),
      tags: extras.tags ?? [], custom_args: extras.custom_args ?? {}, mta: mtaHost, ...(extras.mail_type ? { mail_type: extras.mail_type } : {}),
    },
    raw,
  };
}

/** The MIME every copy of a send body shares (From, Reply-To, its parts, the attachments): composed once per content. */
export function bodySkeleton(body: SendRequestBody): Promise<MimeSkeleton> {
  return buildSkeleton({
    from: formatAddress(body.from),
    replyTo: body.reply_to && formatAddress(body.reply_to),
    hasHtml: body.content.html !== undefined,
    hasText: textPartOf(body.content) !== undefined,
    attachments: attachmentsOf(body.attachments),
  });
}

/** What names a copy besides its content: its Message-ID, and the List-Id of its account's mail. */
export interface CopyIds { messageId: string; listId: string }

/**
 * One recipient's copy of a send body as the relay takes it: its rendering spliced into the
 * body's skeleton, with Herald's list headers (List-Id, List-Unsubscribe) unless `unsubscribe` is
 * false (Herald's own opt-in confirmation). Bcc is never written into the message: its addresses
 * are only in the envelope.
 */
export function composeCopy(skeleton: MimeSkeleton, recipient: Recipient, copy: Personalised, ids: CopyIds, unsubscribe = true): Buffer {
  return skeleton.build({
    to: formatAddress(recipient.to),
    cc: recipient.cc?.map(formatAddress),
    subject: copy.subject,
    messageId: ids.messageId,
    html: copy.html,
    text: copy.text,
    headers: unsubscribe ? withListHeaders(copy.headers, ids.listId, copy.tokens) : copy.headers,
  });
}

/**
 * The List-Id of an account's mail (RFC 2919) on `host` (the Message-IDs' host): one list per
 * account, as the one-click unsubscribe of its List-Unsubscribe is the account's. A List-Unsubscribe
 * without a List-Id is what SpamAssassin's LIST_PARTIAL rules count against a message.
 */
export function listIdOf(account: string, host: string): string {
  return `<${account.toLowerCase().replace(/[^a-z0-9-]/g, '-')}.${host}>`;
}

/** The client's headers with Herald's list headers: its own List-Id, if it set one, wins; Herald's List-Unsubscribe always does. */
function withListHeaders(headers: Record<string, string> | undefined, listId: string, tokens: MessageTokens): Record<string, string> {
  const own = headers !== undefined && Object.keys(headers).some((name) => name.toLowerCase() === 'list-id');
  return { ...headers, ...listHeadersOf(tokens, own ? undefined : listId) };
}

/** What planning needs besides the request: the Message-ID host, and where tracking links point. */
export interface PlanContext { mtaHost: string; links: LinkContext }

/**
 * An accepted request, read once: the envelope sender (DKIM signs for its domain), the ids of its
 * messages (derived from the request: stable across retries, so a resend reuses the Message-ID),
 * and each message, built only when asked for, so a retry builds only what the ledger does not
 * show as done.
 */
export interface RequestPlan {
  sender: string;
  mailIds: string[];
  message(index: number): PlannedMessage;
}

export async function planRequest(request: SendRequestDoc, context: PlanContext): Promise<RequestPlan> {
  return request.source === 'smtp'
    ? planSmtp(request, readSmtpSubmission(request), context)
    : planHttp(request, readHttpBody(request), context);
}

/**
 * The messages of a request whose content cannot be built (planRequest threw): their ids and
 * addresses only, enough to record their failure. `raw` is never called for them.
 */
export function unbuildableMessages(request: SendRequestDoc, mtaHost: string): PlannedMessage[] {
  const emails = request.source === 'smtp' ? readSmtpSubmission(request).rcptTo : readHttpBody(request).recipients.map((r) => r.to.email);
  const mailIds = mailIdsOf(request, emails.length);
  return emails.map((email, index) => plannedMessage(namesOf(request, mailIds[index], email), mtaHost, () => {
    throw new Error('this message cannot be built');
  }));
}

/**
 * The mail_id of a request's `index`th message (recipients[] element or envelope recipient):
 * stable across retries, named by its tracking tokens. The account is part of it: the ledger's
 * `_id` is global, and request ids such as a campaign's (`campaign-<id>`) repeat across accounts.
 */
export function mailIdOf(account: string, requestId: string, index: number): string {
  return derivedId('mail', account, requestId, String(index));
}

const mailIdsOf = (request: SendRequestDoc, count: number) => Array.from({ length: count }, (_, index) => mailIdOf(request.account, request._id, index));

const namesOf = (request: SendRequestDoc, mailId: string, email: string): MessageNames => (
  { account: request.account, requestId: request._id, mailId, batchId: request.batchId, email }
);

async function planHttp(request: SendRequestDoc, body: SendRequestBody, context: PlanContext): Promise<RequestPlan> {
  const { mtaHost } = context;
  const mailIds = mailIdsOf(request, body.recipients.length);
  // Once per request: the templates compiled, the shared MIME (with the attachments) composed.
  const render = contentRenderer(body, context.links);
  const skeleton = await bodySkeleton(body);
  const idHost = messageIdHost(mtaHost, body.from.email);
  const listId = listIdOf(request.account, idHost);
  return {
    sender: body.from.email,
    mailIds,
    message(index) {
      const recipient = body.recipients[index];
      const names = namesOf(request, mailIds[index], recipient.to.email);
      const messageId = messageIdOf(names.mailId, idHost);
      const raw = () => composeCopy(skeleton, recipient, render(recipient, { ...names, index }), { messageId, listId }, request.purpose !== 'optin-confirmation');
      return plannedMessage(names, mtaHost, raw, {
        messageId,
        copiesTo: [...(recipient.cc ?? []), ...(recipient.bcc ?? [])].map((address) => address.email),
        tags: [...(body.tags ?? []), ...(recipient.tags ?? [])],
        custom_args: recipient.custom_args ?? {},
      });
    },
  };
}

/**
 * An SMTP submission: one copy per envelope recipient, each with its own Message-ID and tracking
 * links (open and click tracking always on, nothing substituted: the spec's SMTP limitations),
 * the client's header lines (To, Cc, Subject, its own) as written.
 */
async function planSmtp(request: SendRequestDoc, submission: SmtpSubmission, context: PlanContext): Promise<RequestPlan> {
  const { mtaHost, links } = context;
  const { message } = submission;
  const mailIds = mailIdsOf(request, submission.rcptTo.length);
  // Herald's own List-Unsubscribe replaces the client's: its one-click must reach Herald's suppression list.
  const headerLines = message.headerLines.filter((line) => !LIST_UNSUBSCRIBE.has(headerName(line)));
  const idHost = messageIdHost(mtaHost, message.from.email);
  // The client's own List-Id line stays, and Herald adds none.
  const listId = headerLines.some((line) => headerName(line) === 'list-id') ? undefined : listIdOf(request.account, idHost);
  const html = message.html !== undefined ? trackedHtmlRenderer(message.html, undefined, links, true) : undefined;
  // HTML only: a text part made from it (not a template here: nothing is substituted in a submission).
  const text = message.text ?? (message.html !== undefined ? htmlToText(message.html) || undefined : undefined);
  const skeleton = await buildSkeleton({
    from: formatAddress(message.from),
    replyTo: message.replyTo && formatAddress(message.replyTo),
    date: message.date ? new Date(message.date) : undefined,
    hasHtml: html !== undefined,
    hasText: text !== undefined,
    attachments: attachmentsOf(message.attachments),
  });
  return {
    // The envelope sender (a null sender `<>` takes the From address): the relay's MAIL FROM, and whose domain DKIM signs for.
    sender: submission.mailFrom || message.from.email,
    mailIds,
    message(index) {
      const names = namesOf(request, mailIds[index], submission.rcptTo[index]);
      const messageId = messageIdOf(names.mailId, idHost);
      return plannedMessage(names, mtaHost, () => {
        const tokens = new MessageTokens(links, { ...names, index });
        return skeleton.build({ messageId, html: html?.({}, tokens), text, headerLines, headers: listHeadersOf(tokens, listId) });
      }, { messageId });
    },
  };
}

const LIST_UNSUBSCRIBE = new Set(['list-unsubscribe', 'list-unsubscribe-post']);
const headerName = (line: string) => line.slice(0, line.indexOf(':')).trim().toLowerCase();

/**
 * The unsubscribe headers of every message but Herald's own opt-in confirmation: the message's
 * unsubscribe link (RFC 2369) and RFC 8058 one-click, a POST of `List-Unsubscribe=One-Click` to it.
 */
export function listUnsubscribeOf(tokens: MessageTokens): Record<string, string> {
  return { 'List-Unsubscribe': `<${tokens.url('u')}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

/** Herald's list headers of a message: its List-Id (none when the client set its own) and its List-Unsubscribe. */
function listHeadersOf(tokens: MessageTokens, listId: string | undefined): Record<string, string> {
  return { ...(listId ? { 'List-Id': listId } : {}), ...listUnsubscribeOf(tokens) };
}

/**
 * The request's attachments, decoded once and shared by all its messages (nodemailer only reads
 * them). Checked at the door, so the name is safe in headers and names the content's format;
 * the Content-Type is that format's own, never the client's string. An SMTP message's inline
 * ones keep their Content-ID, so its HTML's `cid:` images still show.
 */
function attachmentsOf(attachments: SmtpAttachment[] | undefined): SendMailOptions['attachments'] {
  return attachments?.map((attachment) => ({
    filename: attachment.file_name,
    content: Buffer.from(attachment.data, 'base64'),
    contentType: contentTypeOf(attachment.file_name),
    ...(attachment.content_id ? { cid: attachment.content_id } : {}),
  }));
}

export function formatAddress(address: Address): string | { name: string; address: string } {
  return address.name ? { name: address.name, address: address.email } : address.email;
}
