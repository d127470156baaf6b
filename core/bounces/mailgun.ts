// Mailgun's webhooks (the webhooks API's JSON form): `{"signature": {timestamp, token, signature},
// "event-data": {...}}`. The signature is the hex HMAC-SHA256 of timestamp followed by token, with
// the HTTP webhook signing key; the token is used once (claimed in nonces.ts), and the timestamp
// must be recent (webhook-age.ts).
//
// Events: `failed` with severity `permanent` is a hard bounce, `temporary` soft (its message from
// delivery-status: message, description); `complained` is a complaint; every other event
// (delivered, opened, clicked, unsubscribed, accepted, stored) records nothing. The message is
// found by event-data.message.headers.message-id (Mailgun gives it without its angle brackets);
// an event is named by event-data.id.
import crypto from 'node:crypto';
import { errors } from '../shared/errors';
import { obj, providerMessage, str, type ProviderEvent } from './provider-event';
import { checkWebhookAge, MAX_WEBHOOK_AGE_SECONDS } from './webhook-age';

export interface MailgunSignature { timestamp: string; token: string; signature: string }

/** The body's signature block; 400 when the body is not a Mailgun webhook's. */
export function mailgunSignatureOf(body: unknown): MailgunSignature {
  const signature = obj(obj(body)?.signature);
  const fields = { timestamp: str(signature?.timestamp), token: str(signature?.token), signature: str(signature?.signature) };
  if (!fields.timestamp || !fields.token || !fields.signature || !obj(obj(body)?.['event-data'])) {
    throw errors.badRequest('A Mailgun webhook body is {"signature": {"timestamp", "token", "signature"}, "event-data": {…}}');
  }
  return fields as MailgunSignature;
}

/** Throws 401 unless the signature holds and the timestamp is recent. */
export function verifyMailgunSignature(signingKey: string, { timestamp, token, signature }: MailgunSignature, now = new Date()): void {
  const expected = crypto.createHmac('sha256', signingKey).update(timestamp + token).digest();
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
    throw errors.unauthorized('The Mailgun signature does not match: check feedback.mailgun.signingKey');
  }
  checkWebhookAge(timestamp, now, 'Mailgun');
}

/** How long a used token is kept: beyond the age a request may have, it would be refused for its age. */
export const MAILGUN_TOKEN_TTL_MS = 2 * MAX_WEBHOOK_AGE_SECONDS * 1000;

export function mailgunEvent(body: unknown): ProviderEvent {
  const data = obj(obj(body)?.['event-data']) ?? {};
  const type = str(data.event) ?? '';
  const id = str(data.id) ?? '';
  const messageId = str(obj(obj(data.message)?.headers)?.['message-id']);
  const base = { id, messageIds: messageId ? [messageId] : [], recipients: [str(data.recipient)].filter((r): r is string => r !== undefined) };
  if (!id) return { ...base, outcome: { kind: 'none', why: 'the event has no id' } };
  if (type === 'complained') return { ...base, outcome: { kind: 'complaint' } };
  if (type === 'failed') {
    const severity = str(data.severity);
    if (severity !== 'permanent' && severity !== 'temporary') return { ...base, outcome: { kind: 'none', why: `failure severity "${severity ?? 'none'}" is unknown` } };
    const status = obj(data['delivery-status']) ?? {};
    const code = str(status.code);
    return {
      ...base,
      outcome: {
        kind: 'bounce', bounceType: severity === 'permanent' ? 'hard' : 'soft',
        message: providerMessage(str(status.message), str(status.description), code && `Code: ${code}`, str(data.reason) && `Reason: ${str(data.reason)}`),
      },
    };
  }
  return { ...base, outcome: { kind: 'none', why: `Mailgun event "${type || 'none'}" is neither a failure nor a complaint` } };
}
