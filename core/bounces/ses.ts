// Amazon SES's bounce and complaint notifications (the JSON `Message` of an SNS notification,
// https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html; SES event publishing's
// `eventType` is read like `notificationType`):
// - Bounce: bounceType Permanent is hard, Transient and Undetermined soft; one event per
//   bouncedRecipients[] entry (its diagnosticCode, status and action in the message);
// - Complaint: one complaint per complainedRecipients[] entry, unless complaintFeedbackType is
//   `not-spam` (the same rule as ARF reports);
// - Delivery and every other type record nothing.
// The message is found by mail.commonHeaders.messageId, else a Message-ID among mail.headers (SES
// lists the original headers when the identity's notifications include them). An event is named
// by the bounce's or complaint's feedbackId (the SNS MessageId when absent) and its recipient.
import { obj, providerMessage, str, type ProviderEvent } from './provider-event';

const NOT_COMPLAINTS = new Set(['not-spam']);

export function sesEvents(notification: unknown, snsMessageId: string): ProviderEvent[] {
  const value = obj(notification);
  if (!value) return [];
  const type = str(value.notificationType) ?? str(value.eventType) ?? '';
  const mail = obj(value.mail) ?? {};
  const messageIds = messageIdsOf(mail);
  if (type === 'Bounce') {
    const bounce = obj(value.bounce) ?? {};
    const kind = str(bounce.bounceType) ?? '';
    const bounceType = kind === 'Permanent' ? 'hard' : 'soft';
    const id = str(bounce.feedbackId) ?? snsMessageId;
    return recipientsOf(bounce.bouncedRecipients).map((recipient) => ({
      id: `${id}:${str(recipient.emailAddress) ?? ''}`, messageIds, recipients: [str(recipient.emailAddress) ?? ''],
      outcome: {
        kind: 'bounce', bounceType,
        message: providerMessage(
          str(recipient.diagnosticCode), `${kind || 'Undetermined'} bounce${str(bounce.bounceSubType) ? ` (${str(bounce.bounceSubType)})` : ''}`,
          str(recipient.status) && `Status: ${str(recipient.status)}`,
        ),
      },
    }));
  }
  if (type === 'Complaint') {
    const complaint = obj(value.complaint) ?? {};
    const feedbackType = str(complaint.complaintFeedbackType);
    const id = str(complaint.feedbackId) ?? snsMessageId;
    return recipientsOf(complaint.complainedRecipients).map((recipient) => ({
      id: `${id}:${str(recipient.emailAddress) ?? ''}`, messageIds, recipients: [str(recipient.emailAddress) ?? ''],
      outcome: feedbackType && NOT_COMPLAINTS.has(feedbackType)
        ? { kind: 'none', why: `complaint feedback type "${feedbackType}" is not a complaint` }
        : { kind: 'complaint' },
    }));
  }
  return [{ id: snsMessageId, messageIds, outcome: { kind: 'none', why: `SES notification "${type || 'none'}" is neither a bounce nor a complaint` } }];
}

function recipientsOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.map(obj).filter((r): r is Record<string, unknown> => r !== undefined && str(r.emailAddress) !== undefined) : [];
}

function messageIdsOf(mail: Record<string, unknown>): string[] {
  const common = str(obj(mail.commonHeaders)?.messageId);
  const headers = Array.isArray(mail.headers) ? mail.headers.map(obj) : [];
  const listed = headers.filter((h) => str(h?.name)?.toLowerCase() === 'message-id').map((h) => str(h?.value));
  return [common, ...listed].filter((m): m is string => m !== undefined);
}
