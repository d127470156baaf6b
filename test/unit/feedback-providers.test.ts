// Each provider's payload mapped to what Herald records (core/bounces/<provider>.ts), and each
// provider's authentication: as the providers document their payloads and signatures.
import crypto from 'node:crypto';
import { AppError } from '../../core/shared/errors';
import { mailgunEvent, mailgunSignatureOf, verifyMailgunSignature } from '../../core/bounces/mailgun';
import { checkPostmarkAuth, postmarkEvent } from '../../core/bounces/postmark';
import { mailIdOfEvent, outcomeForRecipient, providerMessage } from '../../core/bounces/provider-event';
import { sendgridEvents, verifySendgridSignature } from '../../core/bounces/sendgrid';
import { sesEvents } from '../../core/bounces/ses';
import { isSnsUrl, snsEnvelopeOf, SnsVerifier } from '../../core/bounces/sns';
import { basicAuth, mailgunSignature, makeTestPki, sendgridHeaders, sendgridKeys, signedSnsMessage, SNS_HOST, type TestPki } from '../../bench/feedback-signing';

const MID = '<mail_2x9k4q7b1m3n5p8r@herald.test>';
const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
  return undefined;
};
const rejectionOf = async (promise: Promise<unknown>): Promise<string | undefined> => promise.then(() => undefined, (error: unknown) => (error instanceof AppError ? error.code : String(error)));

describe('provider events', () => {
  it('name the message by metadata or by a Herald Message-ID, with or without angle brackets', () => {
    const outcome = { kind: 'complaint' } as const;
    expect(mailIdOfEvent({ id: 'a', mailId: 'mail_abc', outcome })).toBe('mail_abc');
    expect(mailIdOfEvent({ id: 'a', mailId: 'not-one', outcome })).toBeUndefined();
    expect(mailIdOfEvent({ id: 'a', messageIds: ['<0100@email.amazonses.com>', 'mail_abc@herald.test'], outcome })).toBe('mail_abc');
    expect(mailIdOfEvent({ id: 'a', messageIds: ['<someone-else@example.com>'], outcome })).toBeUndefined();
  });

  it('record nothing for another recipient than the message\'s', () => {
    const event = { id: 'a', recipients: ['Ada@Example.org'], outcome: { kind: 'complaint' } as const };
    expect(outcomeForRecipient(event, 'ada@example.org')).toEqual({ kind: 'complaint' });
    expect(outcomeForRecipient(event, 'bob@example.org').kind).toBe('none');
  });

  it('bound the message', () => {
    expect(providerMessage(' a \n b ', undefined, 'a b', 'c')).toBe('a b\nc');
    expect(providerMessage('x'.repeat(5000))).toHaveLength(1000);
  });
});

describe('SendGrid', () => {
  const keys = sendgridKeys();
  const event = (extra: object) => ({ email: 'ada@example.org', timestamp: 1513299569, 'smtp-id': MID, sg_event_id: 'ev1', sg_message_id: 'x', ...extra });

  it('maps bounce (bounce: hard, blocked: soft), spamreport, and ignores dropped and the rest', () => {
    const events = sendgridEvents([
      event({ event: 'bounce', type: 'bounce', reason: '550 5.1.1 The email account does not exist', status: '5.1.1' }),
      event({ event: 'bounce', type: 'blocked', reason: '421 Try again later', status: '4.0.0' }),
      event({ event: 'spamreport' }),
      event({ event: 'dropped', reason: 'Bounced Address' }),
      event({ event: 'delivered' }),
    ]);
    expect(events.map((e) => e.outcome)).toEqual([
      { kind: 'bounce', bounceType: 'hard', message: '550 5.1.1 The email account does not exist\nStatus: 5.1.1' },
      { kind: 'bounce', bounceType: 'soft', message: '421 Try again later\nStatus: 4.0.0' },
      { kind: 'complaint' },
      expect.objectContaining({ kind: 'none' }),
      expect.objectContaining({ kind: 'none' }),
    ]);
    expect(events[0]).toMatchObject({ id: 'ev1', messageIds: [MID], recipients: ['ada@example.org'] });
    expect(mailIdOfEvent(events[0])).toBe('mail_2x9k4q7b1m3n5p8r');
  });

  it('refuses a body that is not an array of events', () => {
    expect(codeOf(() => sendgridEvents({ event: 'bounce' }))).toBe('BAD_REQUEST');
    expect(codeOf(() => sendgridEvents([1]))).toBe('BAD_REQUEST');
  });

  it('checks the ECDSA signature over timestamp and body, and the timestamp\'s age', () => {
    const body = JSON.stringify([event({ event: 'spamreport' })]);
    const ok = sendgridHeaders(keys.privateKey, body);
    const [signature, timestamp] = [ok['x-twilio-email-event-webhook-signature'], ok['x-twilio-email-event-webhook-timestamp']];
    expect(codeOf(() => verifySendgridSignature(keys.publicKey, signature, timestamp, body))).toBeUndefined();
    expect(codeOf(() => verifySendgridSignature(keys.publicKey, signature, timestamp, body.replace('spamreport', 'delivered')))).toBe('UNAUTHORIZED');
    expect(codeOf(() => verifySendgridSignature(sendgridKeys().publicKey, signature, timestamp, body))).toBe('UNAUTHORIZED');
    expect(codeOf(() => verifySendgridSignature(keys.publicKey, 'bm90IGEgc2lnbmF0dXJl', timestamp, body))).toBe('UNAUTHORIZED');
    expect(codeOf(() => verifySendgridSignature(keys.publicKey, '', timestamp, body))).toBe('UNAUTHORIZED');
    const old = sendgridHeaders(keys.privateKey, body, Math.floor(Date.now() / 1000) - 3600);
    expect(codeOf(() => verifySendgridSignature(keys.publicKey, old['x-twilio-email-event-webhook-signature'], old['x-twilio-email-event-webhook-timestamp'], body))).toBe('UNAUTHORIZED');
  });
});

describe('Mailgun', () => {
  const key = 'mailgun-signing-key-0123456789';
  const body = (eventData: object, signature = mailgunSignature(key)) => ({ signature, 'event-data': { id: 'mg1', recipient: 'ada@example.org', message: { headers: { 'message-id': MID.slice(1, -1) } }, ...eventData } });

  it('maps failed (permanent: hard, temporary: soft) and complained, and ignores the rest', () => {
    const hard = mailgunEvent(body({ event: 'failed', severity: 'permanent', reason: 'bounce', 'delivery-status': { code: 550, message: '5.1.1 The email account that you tried to reach does not exist', description: '' } }));
    expect(hard).toMatchObject({ id: 'mg1', recipients: ['ada@example.org'], outcome: { kind: 'bounce', bounceType: 'hard' } });
    expect(hard.outcome.kind === 'bounce' && hard.outcome.message).toBe('5.1.1 The email account that you tried to reach does not exist\nCode: 550\nReason: bounce');
    expect(mailIdOfEvent(hard)).toBe('mail_2x9k4q7b1m3n5p8r');
    expect(mailgunEvent(body({ event: 'failed', severity: 'temporary', 'delivery-status': { code: 452, description: 'Mailbox full' } })).outcome)
      .toMatchObject({ kind: 'bounce', bounceType: 'soft', message: 'Mailbox full\nCode: 452' });
    expect(mailgunEvent(body({ event: 'complained' })).outcome).toEqual({ kind: 'complaint' });
    expect(mailgunEvent(body({ event: 'delivered' })).outcome.kind).toBe('none');
    expect(mailgunEvent(body({ event: 'failed', severity: 'odd' })).outcome.kind).toBe('none');
  });

  it('checks the HMAC of timestamp and token, and the timestamp\'s age; refuses a body without its signature block', () => {
    const signature = mailgunSignature(key);
    expect(codeOf(() => verifyMailgunSignature(key, signature))).toBeUndefined();
    expect(codeOf(() => verifyMailgunSignature('another-signing-key', signature))).toBe('UNAUTHORIZED');
    expect(codeOf(() => verifyMailgunSignature(key, { ...signature, token: `${signature.token}x` }))).toBe('UNAUTHORIZED');
    expect(codeOf(() => verifyMailgunSignature(key, mailgunSignature(key, Math.floor(Date.now() / 1000) - 3600)))).toBe('UNAUTHORIZED');
    expect(mailgunSignatureOf(body({}, signature))).toEqual(signature);
    expect(codeOf(() => mailgunSignatureOf({ 'event-data': {} }))).toBe('BAD_REQUEST');
    expect(codeOf(() => mailgunSignatureOf([]))).toBe('BAD_REQUEST');
  });
});

describe('Postmark', () => {
  const record = (extra: object) => ({
    RecordType: 'Bounce', ID: 4323372036, Type: 'HardBounce', TypeCode: 1, MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).', Details: 'smtp;550 5.1.1 unknown user',
    Email: 'ada@example.org', Metadata: { 'herald-mail-id': 'mail_abc' }, MessageStream: 'outbound', ...extra,
  });

  it('maps bounce types: hard, soft, not a bounce; spam complaints', () => {
    const type = (Type: string) => postmarkEvent(record({ Type })).outcome;
    for (const hard of ['HardBounce', 'BadEmailAddress']) expect(type(hard)).toMatchObject({ kind: 'bounce', bounceType: 'hard' });
    for (const soft of ['SoftBounce', 'Transient', 'DnsError', 'Blocked', 'SpamNotification', 'Undeliverable', 'DMARCPolicy']) expect(type(soft)).toMatchObject({ kind: 'bounce', bounceType: 'soft' });
    for (const none of ['AutoResponder', 'AddressChange', 'Subscribe', 'Unsubscribe', 'ManuallyDeactivated', 'InboundError']) expect(type(none).kind).toBe('none');
    expect(type('HardBounce')).toMatchObject({ message: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).\nsmtp;550 5.1.1 unknown user' });
    const complaintBody = JSON.stringify(record({ RecordType: 'SpamComplaint', Type: 'SpamComplaint', TypeCode: 512, ID: 1 }))
      .replace('"ID":1,', '"ID":4323372036854775807,'); // as Postmark's example writes it: beyond exact doubles
    const complaint = postmarkEvent(JSON.parse(complaintBody), complaintBody);
    expect(complaint).toMatchObject({ id: 'SpamComplaint:4323372036854775807', mailId: 'mail_abc', outcome: { kind: 'complaint' } });
    expect(codeOf(() => postmarkEvent(record({ RecordType: 'Delivery' })))).toBe('BAD_REQUEST');
  });

  it('takes only its basic-auth pair', () => {
    const settings = { username: 'herald', password: 'postmark-secret' };
    expect(codeOf(() => checkPostmarkAuth(settings, basicAuth('herald', 'postmark-secret')))).toBeUndefined();
    expect(codeOf(() => checkPostmarkAuth(settings, basicAuth('herald', 'postmark-secreT')))).toBe('UNAUTHORIZED');
    expect(codeOf(() => checkPostmarkAuth(settings, ''))).toBe('UNAUTHORIZED');
    expect(codeOf(() => checkPostmarkAuth(settings, 'Bearer postmark-secret'))).toBe('UNAUTHORIZED');
  });
});

describe('Amazon SES notifications', () => {
  const mail = { messageId: '0100018d-ses', commonHeaders: { messageId: '<0100018d-ses@email.amazonses.com>' }, headers: [{ name: 'Message-ID', value: MID }] };

  it('maps bounces (Permanent: hard; Transient, Undetermined: soft), one event per recipient, found by a Message-ID in the headers', () => {
    const bounce = (bounceType: string) => sesEvents({
      notificationType: 'Bounce', mail,
      bounce: { bounceType, bounceSubType: 'General', feedbackId: 'fb1', bouncedRecipients: [{ emailAddress: 'ada@example.org', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] },
    }, 'sns1');
    const [hard] = bounce('Permanent');
    expect(hard).toMatchObject({ id: 'fb1:ada@example.org', recipients: ['ada@example.org'], outcome: { kind: 'bounce', bounceType: 'hard', message: 'smtp; 550 5.1.1 user unknown\nPermanent bounce (General)\nStatus: 5.1.1' } });
    expect(mailIdOfEvent(hard)).toBe('mail_2x9k4q7b1m3n5p8r');
    expect(bounce('Transient')[0].outcome).toMatchObject({ bounceType: 'soft' });
    expect(bounce('Undetermined')[0].outcome).toMatchObject({ bounceType: 'soft' });
  });

  it('maps complaints (not-spam is none), ignores deliveries and what is not JSON', () => {
    const complaint = (complaintFeedbackType?: string) => sesEvents({ eventType: 'Complaint', mail, complaint: { feedbackId: 'fb2', complaintFeedbackType, complainedRecipients: [{ emailAddress: 'ada@example.org' }] } }, 'sns2');
    expect(complaint('abuse')[0]).toMatchObject({ id: 'fb2:ada@example.org', outcome: { kind: 'complaint' } });
    expect(complaint()[0].outcome).toEqual({ kind: 'complaint' });
    expect(complaint('not-spam')[0].outcome.kind).toBe('none');
    expect(sesEvents({ notificationType: 'Delivery', mail }, 'sns3')[0].outcome.kind).toBe('none');
    expect(sesEvents(undefined, 'sns4')).toEqual([]);
  });
});

describe('SNS messages', () => {
  let pki: TestPki;
  const topic = 'arn:aws:sns:us-east-1:123456789012:ses-feedback';
  const certUrl = `https://${SNS_HOST}/SimpleNotificationService-test.pem`;
  beforeAll(() => { pki = makeTestPki(); });
  const fetched: string[] = [];
  const verifier = () => new SnsVerifier(async (url) => { fetched.push(url); return pki.signing.cert; });
  const notification = (extra: Record<string, string> = {}, version: '1' | '2' = '2') =>
    snsEnvelopeOf(signedSnsMessage({ Type: 'Notification', MessageId: 'm1', TopicArn: topic, Message: '{"notificationType":"Bounce"}', ...extra }, pki.signing.key, certUrl, version));

  it('verifies signatures of version 1 (SHA1) and 2 (SHA256), with or without a Subject, and subscription confirmations', async () => {
    const sns = verifier();
    await expect(sns.verify(notification(), [topic])).resolves.toBeUndefined();
    await expect(sns.verify(notification({}, '1'), [topic])).resolves.toBeUndefined();
    await expect(sns.verify(notification({ Subject: 'Amazon SES Email Event Notification' }), [topic])).resolves.toBeUndefined();
    const confirmation = snsEnvelopeOf(signedSnsMessage({
      Type: 'SubscriptionConfirmation', MessageId: 'm2', TopicArn: topic, Message: 'You have chosen to subscribe…', Token: 'tok',
      SubscribeURL: `https://${SNS_HOST}/?Action=ConfirmSubscription&TopicArn=${topic}&Token=tok`,
    }, pki.signing.key, certUrl));
    await expect(sns.verify(confirmation, [topic])).resolves.toBeUndefined();
  });

  it('refuses a changed message, another topic, a certificate elsewhere; a body that is no SNS message', async () => {
    const sns = verifier();
    const message = notification();
    expect(await rejectionOf(sns.verify({ ...message, Message: '{"notificationType":"Complaint"}' }, [topic]))).toBe('UNAUTHORIZED');
    expect(await rejectionOf(sns.verify({ ...message, SignatureVersion: '1' }, [topic]))).toBe('UNAUTHORIZED');
    expect(await rejectionOf(sns.verify(message, ['arn:aws:sns:us-east-1:123456789012:other']))).toBe('FORBIDDEN');
    fetched.length = 0;
    for (const url of ['https://sns.us-east-1.amazonaws.com.evil.example/x.pem', 'http://sns.us-east-1.amazonaws.com/x.pem', 'https://evil.example/x.pem',
      'https://sns.us-east-1.amazonaws.com:8443/x.pem', 'https://sns.us-east-1.amazonaws.com/x.txt']) {
      expect(await rejectionOf(sns.verify({ ...message, SigningCertURL: url }, [topic]))).toBe('UNAUTHORIZED');
    }
    expect(fetched).toEqual([]);
    expect(isSnsUrl('https://sns.cn-north-1.amazonaws.com.cn/x.pem', 'certificate')).toBe(true);
    expect(codeOf(() => snsEnvelopeOf({ Type: 'Notification' }))).toBe('BAD_REQUEST');
    expect(codeOf(() => snsEnvelopeOf({ ...message, Type: 'Other' }))).toBe('BAD_REQUEST');
    expect(codeOf(() => snsEnvelopeOf({ ...message, Type: 'SubscriptionConfirmation' }))).toBe('BAD_REQUEST');
  });

  it('fetches a certificate once per URL', async () => {
    const sns = verifier();
    fetched.length = 0;
    await sns.verify(notification(), [topic]);
    await sns.verify(notification(), [topic]);
    expect(fetched).toEqual([certUrl]);
    expect(crypto.createHash('sha256').update(pki.signing.cert).digest('hex')).toHaveLength(64);
  });
});
