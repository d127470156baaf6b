// Amazon SNS's HTTPS deliveries (how SES reports bounces and complaints): the message's signature
// checked with the certificate at its SigningCertURL, as AWS documents it
// (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html):
// - only topics listed in feedback.ses.topicArns are taken (checked first: nothing is fetched for
//   another topic);
// - SigningCertURL and SubscribeURL must be https://sns.<region>.amazonaws.com[.cn]/…, the
//   certificate a .pem, fetched over HTTPS (the host's own TLS certificate checked) and cached;
// - the string to sign is "Name\nvalue\n" for Message, MessageId, Subject (if present), Timestamp,
//   TopicArn and Type of a Notification; Message, MessageId, SubscribeURL, Timestamp, Token,
//   TopicArn and Type of a (Un)SubscriptionConfirmation; SignatureVersion 1 signs it with
//   SHA1withRSA, 2 with SHA256withRSA.
// A SubscriptionConfirmation is confirmed by GETting its SubscribeURL.
import crypto from 'node:crypto';
import type { HttpsGet } from '../../adapters/http/https-get';
import { errors } from '../shared/errors';
import { obj } from './provider-event';

export type SnsType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

export interface SnsEnvelope {
  Type: SnsType; MessageId: string; TopicArn: string; Message: string; Timestamp: string;
  SignatureVersion: '1' | '2'; Signature: string; SigningCertURL: string;
  Subject?: string; SubscribeURL?: string; Token?: string;
}

const TYPES: readonly string[] = ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'];

/** The SNS message of a body; 400 naming what is missing when it is not one. */
export function snsEnvelopeOf(body: unknown): SnsEnvelope {
  const value = obj(body);
  if (!value) throw errors.badRequest('An SNS message is a JSON object');
  const required = ['Type', 'MessageId', 'TopicArn', 'Message', 'Timestamp', 'SignatureVersion', 'Signature', 'SigningCertURL'];
  const missing = required.filter((name) => typeof value[name] !== 'string');
  if (missing.length > 0) throw errors.badRequest(`Not an SNS message: ${missing.join(', ')} missing`);
  if (!TYPES.includes(value.Type as string)) throw errors.badRequest(`SNS message type "${String(value.Type)}" is not taken`);
  if (value.SignatureVersion !== '1' && value.SignatureVersion !== '2') throw errors.badRequest('SNS SignatureVersion must be 1 or 2');
  if (value.Type !== 'Notification' && (typeof value.SubscribeURL !== 'string' || typeof value.Token !== 'string')) {
    throw errors.badRequest(`An SNS ${String(value.Type)} needs SubscribeURL and Token`);
  }
  for (const name of ['Subject', 'SubscribeURL', 'Token']) {
    if (value[name] !== undefined && value[name] !== null && typeof value[name] !== 'string') throw errors.badRequest(`SNS ${name} must be a string`);
  }
  return value as unknown as SnsEnvelope;
}

/** The string SNS signed (AWS's canonical form). */
export function snsStringToSign(message: SnsEnvelope): string {
  const names = message.Type === 'Notification'
    ? ['Message', 'MessageId', ...(typeof message.Subject === 'string' ? ['Subject'] : []), 'Timestamp', 'TopicArn', 'Type']
    : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return names.map((name) => `${name}\n${String(message[name as keyof SnsEnvelope])}\n`).join('');
}

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/** Whether the URL is https on an SNS host (and, for a certificate, a .pem). */
export function isSnsUrl(raw: string, kind: 'certificate' | 'subscribe'): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.port === '' && url.username === '' && url.password === '' && SNS_HOST.test(url.hostname)
    && (kind === 'subscribe' || url.pathname.endsWith('.pem'));
}

/** Checks SNS messages' signatures with their certificates, fetched once per URL. */
export class SnsVerifier {
  private readonly certificates = new Map<string, Promise<crypto.X509Certificate>>();

  constructor(private readonly httpsGet: HttpsGet, private readonly maxCached = 32) {}

  /** Throws 403 for a topic not listed, 401 for a certificate URL elsewhere or a signature that does not hold. */
  async verify(message: SnsEnvelope, topicArns: readonly string[], now = new Date()): Promise<void> {
    if (!topicArns.includes(message.TopicArn)) {
      throw errors.forbidden(`SNS topic ${message.TopicArn.slice(0, 300)} is not one of feedback.ses.topicArns`);
    }
    if (!isSnsUrl(message.SigningCertURL, 'certificate')) {
      throw errors.unauthorized('The SNS SigningCertURL must be an https://sns.<region>.amazonaws.com/….pem URL');
    }
    const certificate = await this.certificate(message.SigningCertURL);
    if (now < new Date(certificate.validFrom) || now > new Date(certificate.validTo)) throw errors.unauthorized('The SNS signing certificate is not valid now');
    const algorithm = message.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256';
    let valid = false;
    try {
      valid = crypto.verify(algorithm, Buffer.from(snsStringToSign(message), 'utf8'), certificate.publicKey, Buffer.from(message.Signature, 'base64'));
    } catch {
      valid = false;
    }
    if (!valid) throw errors.unauthorized('The SNS signature does not match the message');
  }

  /** Confirms a subscription (GET its SubscribeURL), once the message is verified. */
  async confirm(message: SnsEnvelope): Promise<void> {
    if (!message.SubscribeURL || !isSnsUrl(message.SubscribeURL, 'subscribe')) {
      throw errors.unauthorized('The SNS SubscribeURL must be an https://sns.<region>.amazonaws.com/ URL');
    }
    try {
      await this.httpsGet(message.SubscribeURL);
    } catch {
      throw errors.unavailable('The SNS subscription could not be confirmed now (its SubscribeURL did not answer): SNS will send it again');
    }
  }

  private certificate(url: string): Promise<crypto.X509Certificate> {
    let found = this.certificates.get(url);
    if (!found) {
      if (this.certificates.size >= this.maxCached) this.certificates.delete(this.certificates.keys().next().value as string);
      found = this.httpsGet(url).then(
        (pem) => {
          try {
            return new crypto.X509Certificate(pem);
          } catch {
            throw errors.unauthorized('The SNS SigningCertURL does not hold a certificate');
          }
        },
        () => { throw errors.unavailable('The SNS signing certificate could not be fetched now: SNS will send the message again'); },
      );
      this.certificates.set(url, found);
      found.catch(() => this.certificates.delete(url)); // a failure is not kept: the next message tries again
    }
    return found;
  }
}

/** The notification's body as JSON, or undefined when it is not (SES's first test message is text). */
export function snsMessageJson(message: SnsEnvelope): unknown {
  try {
    return JSON.parse(message.Message);
  } catch {
    return undefined;
  }
}
