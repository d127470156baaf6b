// Postmark's Bounce and Spam Complaint webhooks: one JSON record per request, authenticated by the
// basic-auth pair written in the webhook's URL (https://user:password@host/v1/feedback/postmark),
// compared in constant time.
//
// Postmark sends mail with its own Message-ID, so the message is found by Herald's mail_id, which
// the relay gives Postmark as metadata (the header `X-PM-Metadata-herald-mail-id`) and Postmark
// returns in `Metadata["herald-mail-id"]`. A record is named by its `ID`.
//
// Bounce types (Postmark's list, https://postmarkapp.com/developer/api/bounce-api#bounce-types):
// - hard: HardBounce (the address does not exist), BadEmailAddress (it is not an address);
// - soft: Transient, SoftBounce, DnsError, Undeliverable, Blocked, SpamNotification, VirusNotification,
//   DMARCPolicy, ChallengeVerification, SMTPApiError, Unknown: a failure that says nothing lasting
//   about the address (its server, the content, the sender's reputation);
// - complaint: SpamComplaint (also the Spam Complaint webhook's RecordType);
// - nothing: AutoResponder, AddressChange, Subscribe, Unsubscribe, OpenRelayTest, ManuallyDeactivated,
//   Unconfirmed, InboundError, TemplateRenderingFailed: no bounce of a delivered message.
import crypto from 'node:crypto';
import { errors } from '../shared/errors';
import { obj, providerMessage, str, type ProviderEvent } from './provider-event';

export const POSTMARK_MAIL_ID_METADATA = 'herald-mail-id';

const HARD = new Set(['HardBounce', 'BadEmailAddress']);
const SOFT = new Set([
  'Transient', 'SoftBounce', 'DnsError', 'Undeliverable', 'Blocked', 'SpamNotification', 'VirusNotification', 'DMARCPolicy',
  'ChallengeVerification', 'SMTPApiError', 'Unknown',
]);

/** Throws 401 unless the Authorization header is Basic with the configured pair. */
export function checkPostmarkAuth(settings: { username: string; password: string }, authorization: string): void {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  const given = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const digest = (text: string) => crypto.createHash('sha256').update(text).digest();
  // Hashes of equal length: the comparison takes the same time whatever was sent.
  if (!match || !crypto.timingSafeEqual(digest(given), digest(`${settings.username}:${settings.password}`))) {
    throw errors.unauthorized('Postmark webhooks authenticate with the basic-auth pair of feedback.postmark, written in the webhook URL');
  }
}

/**
 * The record's event; 400 when the body is not a Postmark bounce or spam-complaint record. `raw`:
 * the body's text, where an ID beyond JavaScript's exact integers (Postmark's are 64-bit; its own
 * example is 4323372036854775807) is read digit for digit, so two records never share a name.
 */
export function postmarkEvent(body: unknown, raw?: string): ProviderEvent {
  const record = obj(body);
  const recordType = str(record?.RecordType);
  if (!record || (recordType !== 'Bounce' && recordType !== 'SpamComplaint')) {
    throw errors.badRequest('A Postmark webhook body is one record whose RecordType is Bounce or SpamComplaint (enable only those two webhooks)');
  }
  const id = exactId(record.ID, raw) ?? '';
  const type = str(record.Type) ?? '';
  const mailId = str(obj(record.Metadata)?.[POSTMARK_MAIL_ID_METADATA]);
  const base = { id: `${recordType}:${id}`, mailId, recipients: [str(record.Email)].filter((e): e is string => e !== undefined) };
  if (!id) return { ...base, outcome: { kind: 'none', why: 'the record has no ID' } };
  if (recordType === 'SpamComplaint' || type === 'SpamComplaint') return { ...base, outcome: { kind: 'complaint' } };
  const bounceType = HARD.has(type) ? 'hard' : SOFT.has(type) ? 'soft' : undefined;
  if (!bounceType) return { ...base, outcome: { kind: 'none', why: `Postmark bounce type "${type || 'none'}" is no bounce of the address` } };
  return { ...base, outcome: { kind: 'bounce', bounceType, message: providerMessage(str(record.Description), str(record.Details)) } };
}

function exactId(value: unknown, raw: string | undefined): string | undefined {
  if (typeof value !== 'number' || Number.isSafeInteger(value) || raw === undefined) return str(value);
  for (const match of raw.matchAll(/"ID"\s*:\s*(\d{1,30})\b/g)) if (Number(match[1]) === value) return match[1];
  return str(value);
}
