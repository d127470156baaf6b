// SendGrid's Event Webhook (the "Signed Event Webhook"): a JSON array of events, signed with
// ECDSA P-256 / SHA-256 over the timestamp header's value followed by the raw body; the signature
// (X-Twilio-Email-Event-Webhook-Signature) is the base64 of its DER form, and the key to check it
// is the verification key SendGrid shows (base64 of its DER SubjectPublicKeyInfo).
//
// Events: `bounce` with type `bounce` (the receiving server refused the address) is hard, with type
// `blocked` (refused for the sender or content, a temporary block) soft; `spamreport` is a
// complaint; `dropped` (SendGrid did not even try: its own suppression lists) and every other type
// (processed, deferred, delivered, open, click, unsubscribe, group_*) record nothing. The message
// is found by `smtp-id`, the Message-ID Herald set; an event is named by `sg_event_id`.
import crypto from 'node:crypto';
import { errors } from '../shared/errors';
import { obj, providerMessage, str, type ProviderEvent } from './provider-event';
import { checkWebhookAge } from './webhook-age';

export const SENDGRID_SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const SENDGRID_TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';

/** Throws 401 unless the signature holds for this timestamp and body, and the timestamp is recent. */
export function verifySendgridSignature(publicKey: string, signature: string, timestamp: string, rawBody: string, now = new Date()): void {
  if (!signature || !timestamp) throw errors.unauthorized('The SendGrid signature and timestamp headers are required');
  const key = crypto.createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
  let valid = false;
  try {
    valid = crypto.verify('sha256', Buffer.from(timestamp + rawBody, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    valid = false; // not a DER signature at all
  }
  if (!valid) throw errors.unauthorized('The SendGrid signature does not match the body: check feedback.sendgrid.publicKey');
  checkWebhookAge(timestamp, now, 'SendGrid');
}

/** The events of a (verified) body; 400 when it is not an array of objects. */
export function sendgridEvents(body: unknown): ProviderEvent[] {
  if (!Array.isArray(body) || !body.every((item) => obj(item))) throw errors.badRequest('A SendGrid Event Webhook body is a JSON array of event objects');
  return (body as Array<Record<string, unknown>>).map(sendgridEvent);
}

export function sendgridEvent(event: Record<string, unknown>): ProviderEvent {
  const type = str(event.event) ?? '';
  const id = str(event.sg_event_id) ?? '';
  const base = { id, messageIds: [str(event['smtp-id'])].filter((m): m is string => m !== undefined), recipients: [str(event.email)].filter((e): e is string => e !== undefined) };
  if (!id) return { ...base, outcome: { kind: 'none', why: 'the event has no sg_event_id' } };
  if (type === 'spamreport') return { ...base, outcome: { kind: 'complaint' } };
  if (type === 'bounce') {
    const blocked = str(event.type) === 'blocked';
    return {
      ...base,
      outcome: { kind: 'bounce', bounceType: blocked ? 'soft' : 'hard', message: providerMessage(str(event.reason), str(event.status) && `Status: ${str(event.status)}`) },
    };
  }
  return { ...base, outcome: { kind: 'none', why: `SendGrid event "${type || 'none'}" is neither a bounce nor a spam report` } };
}
