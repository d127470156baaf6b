// Providers' bounce and complaint webhooks (POST /v1/feedback/<provider>) on a running Herald:
// real messages sent through it, then each provider's payload posted as the provider documents
// it, signed with the test's keys (SNS: a certificate served by a local HTTPS server that answers
// as sns.us-east-1.amazonaws.com, trusted through the test's own CA). Each records its event,
// the suppression and the contact's state once, however often it is posted; forged signatures,
// replays, other topics, certificates elsewhere and malformed bodies are refused and change nothing.
import crypto from 'node:crypto';
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import {
  basicAuth, mailgunSignature, makeTestPki, sendgridHeaders, sendgridKeys, signedSnsMessage, SNS_HOST, startFakeSns, type SnsFields,
} from '../../bench/feedback-signing';
import { sendMessages, type SentMessage } from '../support/sent-messages';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:ses-feedback';
const CERT_URL = `https://${SNS_HOST}/SimpleNotificationService-0000000000000000000000.pem`;
const MAILGUN_KEY = 'mailgun-signing-key-for-tests';
const POSTMARK = { username: 'herald', password: 'postmark-secret-1' };
const sendgrid = sendgridKeys();
const pki = makeTestPki();

let herald: TestHerald;
let acme: NewAccount;
let fakeSns: Awaited<ReturnType<typeof startFakeSns>>;
let sent: Map<string, SentMessage>;
const EMAILS = ['ses.hard', 'ses.complaint', 'ses.untouched', 'sg.hard', 'sg.soft', 'sg.both', 'sg.many1', 'sg.many2', 'mg.hard', 'mg.complaint', 'pm.hard', 'pm.complaint'].map((n) => `${n}@example.org`);

beforeAll(async () => {
  fakeSns = await startFakeSns(pki, { [new URL(CERT_URL).pathname]: pki.signing.cert });
  herald = await startTestHerald({
    feedback: { ses: { topicArns: [TOPIC] }, sendgrid: { publicKey: sendgrid.publicKey }, mailgun: { signingKey: MAILGUN_KEY }, postmark: POSTMARK },
    httpsGet: fakeSns.httpsGet,
  });
  acme = await herald.newAccount();
  await Promise.all(EMAILS.map((email) => callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/contacts`, {
    headers: { authorization: `Bearer ${acme.apiKey}` }, json: { email },
  })));
  sent = await sendMessages(herald, acme, EMAILS);
});
afterAll(async () => {
  await herald?.stop();
  await fakeSns?.close();
});

const message = (email: string) => sent.get(email)!;
const post = async (provider: string, body: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${herald.baseUrl}/v1/feedback/${provider}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: response.status, body: await response.json() as { success: boolean; data?: Record<string, unknown>; error?: { type: string; message: string; status: number } } };
};
/** What Herald holds about the address: its feedback events, suppression and contact state. */
async function stateOf(email: string) {
  const { store } = herald.services;
  const events = await store.events.find({ account: acme.account, mail_id: message(email).mailId, track_type: { $in: ['track.mail.bounced', 'track.mail.unsubscribed'] } }).toArray();
  const suppression = await store.suppressions.findOne({ account: acme.account, email });
  const contact = await store.contacts.findOne({ account: acme.account, email });
  return {
    events: events.map(({ track_type, bounce_type, reason, message: text }) => ({ track_type, bounce_type, reason, message: text })),
    suppression: suppression ? { reason: suppression.reason, source: suppression.source } : null,
    contact: contact?.state,
  };
}
const UNTOUCHED = { events: [], suppression: null, contact: 'ACTIVE' };
const expectRefused = (answer: Awaited<ReturnType<typeof post>>, status: number) => {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({ success: false, error: { status, type: expect.any(String), message: expect.any(String) } });
};

describe('Amazon SES through SNS', () => {
  const sesMail = (email: string, inHeadersOnly = false) => ({
    timestamp: new Date().toISOString(), source: 'shop@example.com', messageId: '0100018d0000-ses-0000', destination: [email],
    headersTruncated: false, headers: [{ name: 'From', value: 'shop@example.com' }, { name: 'Message-ID', value: message(email).messageId }],
    commonHeaders: { from: ['shop@example.com'], to: [email], subject: 'Your order', messageId: inHeadersOnly ? '<0100018d0000-ses-0000@email.amazonses.com>' : message(email).messageId },
  });
  const notification = (body: object, extra: Partial<SnsFields> = {}) => JSON.stringify(signedSnsMessage({
    Type: 'Notification', MessageId: crypto.randomUUID(), TopicArn: TOPIC, Message: JSON.stringify(body), ...extra,
  }, pki.signing.key, CERT_URL));
  const bounce = (email: string) => ({
    notificationType: 'Bounce', mail: sesMail(email),
    bounce: {
      bounceType: 'Permanent', bounceSubType: 'General', feedbackId: `fb-${email}`, timestamp: new Date().toISOString(),
      bouncedRecipients: [{ emailAddress: email, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
    },
  });

  it('confirms a subscription by GETting its SubscribeURL', async () => {
    const subscribeUrl = `https://${SNS_HOST}/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=2336412f37`;
    const answer = await post('ses', JSON.stringify(signedSnsMessage({
      Type: 'SubscriptionConfirmation', MessageId: crypto.randomUUID(), TopicArn: TOPIC, Token: '2336412f37', SubscribeURL: subscribeUrl,
      Message: `You have chosen to subscribe to the topic ${TOPIC}.`,
    }, pki.signing.key, CERT_URL)), { 'content-type': 'text/plain; charset=UTF-8' });
    expect(answer).toEqual({ status: 200, body: { success: true, data: { confirmed: true } } });
    expect(fakeSns.gets).toContain(`/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=2336412f37`);
  });

  it('records a Permanent bounce as hard, once however often SNS delivers it', async () => {
    const email = 'ses.hard@example.org';
    const body = notification(bounce(email));
    expect(await post('ses', body, { 'content-type': 'text/plain; charset=UTF-8' })).toEqual({ status: 200, body: { success: true, data: { events: 1, recorded: 1, ignored: 0 } } });
    const expected = {
      events: [{ track_type: 'track.mail.bounced', bounce_type: 'hard', reason: undefined, message: 'smtp; 550 5.1.1 user unknown\nPermanent bounce (General)\nStatus: 5.1.1' }],
      suppression: { reason: 'bounced', source: 'report' }, contact: 'BOUNCED',
    };
    expect(await stateOf(email)).toEqual(expected);
    expect((await post('ses', body)).status).toBe(200);
    expect((await post('ses', notification(bounce(email)))).status).toBe(200); // the same bounce in another SNS delivery
    expect(await stateOf(email)).toEqual(expected);
  });

  it('records a complaint, the message found by the Message-ID among the original headers', async () => {
    const email = 'ses.complaint@example.org';
    const complaint = { notificationType: 'Complaint', mail: sesMail(email, true), complaint: { feedbackId: 'fb-c1', complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: email }] } };
    expect((await post('ses', notification(complaint))).body.data).toEqual({ events: 1, recorded: 1, ignored: 0 });
    expect(await stateOf(email)).toEqual({
      events: [{ track_type: 'track.mail.unsubscribed', bounce_type: undefined, reason: 'spam_fbl', message: undefined }],
      suppression: { reason: 'complained', source: 'report' }, contact: 'COMPLAINED',
    });
  });

  it('answers 200 and records nothing for a message Herald did not send, an UnsubscribeConfirmation, a text message', async () => {
    const other = bounce('ses.untouched@example.org');
    other.mail.commonHeaders.messageId = '<someone-else@example.com>';
    other.mail.headers = [];
    expect((await post('ses', notification(other))).body.data).toEqual({ events: 1, recorded: 0, ignored: 1 });
    const unsubscribe = JSON.stringify(signedSnsMessage({
      Type: 'UnsubscribeConfirmation', MessageId: crypto.randomUUID(), TopicArn: TOPIC, Token: 't', SubscribeURL: `https://${SNS_HOST}/?Action=ConfirmSubscription`, Message: 'unsubscribed',
    }, pki.signing.key, CERT_URL));
    expect((await post('ses', unsubscribe)).status).toBe(200);
    expect((await post('ses', JSON.stringify(signedSnsMessage({ Type: 'Notification', MessageId: 'x', TopicArn: TOPIC, Message: 'Successfully validated SNS topic for Amazon SES event publishing.' }, pki.signing.key, CERT_URL)))).status).toBe(200);
    expect(await stateOf('ses.untouched@example.org')).toEqual(UNTOUCHED);
  });

  it('refuses another topic (403), a certificate on another host, a changed message (401), a body that is no SNS message (400)', async () => {
    const email = 'ses.untouched@example.org';
    const gets = fakeSns.gets.length;
    expectRefused(await post('ses', notification(bounce(email), { TopicArn: 'arn:aws:sns:us-east-1:123456789012:another' })), 403);
    const elsewhere = JSON.stringify(signedSnsMessage({ Type: 'Notification', MessageId: 'm', TopicArn: TOPIC, Message: JSON.stringify(bounce(email)) }, pki.signing.key, 'https://sns.us-east-1.amazonaws.com.evil.example/cert.pem'));
    expectRefused(await post('ses', elsewhere), 401);
    expect(fakeSns.gets.length).toBe(gets); // nothing fetched for either
    const changed = JSON.parse(notification(bounce('ses.complaint@example.org'))) as Record<string, string>;
    changed.Message = JSON.stringify(bounce(email));
    expectRefused(await post('ses', JSON.stringify(changed)), 401);
    expectRefused(await post('ses', '{"Type": "Notification"}'), 400);
    expectRefused(await post('ses', 'not json'), 400);
    expect(await stateOf(email)).toEqual(UNTOUCHED);
  });
});

describe('SendGrid Event Webhook', () => {
  const event = (email: string, extra: object) => ({
    email, timestamp: Math.floor(Date.now() / 1000), 'smtp-id': message(email).messageId, sg_event_id: `sg-${crypto.randomUUID()}`, sg_message_id: 'x.filter0001', ...extra,
  });

  it('records a bounce as hard and a block as soft, ignores the rest, once however often posted', async () => {
    const hard = event('sg.hard@example.org', { event: 'bounce', type: 'bounce', reason: '550 5.1.1 The email account that you tried to reach does not exist.', status: '5.1.1' });
    const body = JSON.stringify([
      hard,
      event('sg.soft@example.org', { event: 'bounce', type: 'blocked', reason: '421 4.7.0 Temporarily rate limited', status: '4.7.0' }),
      event('sg.hard@example.org', { event: 'delivered', response: '250 OK' }),
      event('sg.hard@example.org', { event: 'dropped', reason: 'Bounced Address' }),
    ]);
    const answer = await post('sendgrid', body, sendgridHeaders(sendgrid.privateKey, body));
    expect(answer).toEqual({ status: 200, body: { success: true, data: { events: 4, recorded: 2, ignored: 2 } } });
    const hardState = {
      events: [{ track_type: 'track.mail.bounced', bounce_type: 'hard', reason: undefined, message: '550 5.1.1 The email account that you tried to reach does not exist.\nStatus: 5.1.1' }],
      suppression: { reason: 'bounced', source: 'report' }, contact: 'BOUNCED',
    };
    expect(await stateOf('sg.hard@example.org')).toEqual(hardState);
    expect(await stateOf('sg.soft@example.org')).toEqual({
      events: [{ track_type: 'track.mail.bounced', bounce_type: 'soft', reason: undefined, message: '421 4.7.0 Temporarily rate limited\nStatus: 4.7.0' }],
      suppression: null, contact: 'ACTIVE',
    });
    // SendGrid's retry: signed anew, the same events.
    expect((await post('sendgrid', body, sendgridHeaders(sendgrid.privateKey, body))).status).toBe(200);
    expect(await stateOf('sg.hard@example.org')).toEqual(hardState);
  });

  it('records a batch in one go: a complaint outranks a hard bounce of the same message, an event twice in it counts once', async () => {
    const bounce = (email: string) => event(email, { event: 'bounce', type: 'bounce', reason: '550 5.1.1 No such user', status: '5.1.1' });
    const repeated = bounce('sg.many1@example.org');
    const body = JSON.stringify([bounce('sg.both@example.org'), event('sg.both@example.org', { event: 'spamreport' }), repeated, repeated, bounce('sg.many2@example.org')]);
    const answer = await post('sendgrid', body, sendgridHeaders(sendgrid.privateKey, body));
    expect(answer).toEqual({ status: 200, body: { success: true, data: { events: 5, recorded: 5, ignored: 0 } } });
    const both = await stateOf('sg.both@example.org');
    expect(both.events).toHaveLength(2);
    expect(both).toEqual({
      events: expect.arrayContaining([
        { track_type: 'track.mail.bounced', bounce_type: 'hard', reason: undefined, message: '550 5.1.1 No such user\nStatus: 5.1.1' },
        { track_type: 'track.mail.unsubscribed', bounce_type: undefined, reason: 'spam_fbl', message: undefined },
      ]),
      suppression: { reason: 'complained', source: 'report' }, contact: 'COMPLAINED',
    });
    const once = { events: [{ track_type: 'track.mail.bounced', bounce_type: 'hard', reason: undefined, message: '550 5.1.1 No such user\nStatus: 5.1.1' }], suppression: { reason: 'bounced', source: 'report' }, contact: 'BOUNCED' };
    expect(await stateOf('sg.many1@example.org')).toEqual(once);
    expect(await stateOf('sg.many2@example.org')).toEqual(once);
  });

  it('refuses a forged signature, an old timestamp (replay), a body that is not an array; nothing changes', async () => {
    const email = 'ses.untouched@example.org';
    const body = JSON.stringify([event(email, { event: 'spamreport' })]);
    expectRefused(await post('sendgrid', body, sendgridHeaders(sendgridKeys().privateKey, body)), 401);
    expectRefused(await post('sendgrid', body, { ...sendgridHeaders(sendgrid.privateKey, body), 'x-twilio-email-event-webhook-timestamp': String(Math.floor(Date.now() / 1000) + 1) }), 401);
    expectRefused(await post('sendgrid', body), 401);
    const replay = await post('sendgrid', body, sendgridHeaders(sendgrid.privateKey, body, Math.floor(Date.now() / 1000) - 11 * 60));
    expectRefused(replay, 401);
    expect(replay.body.error?.message).toMatch(/old/);
    const notArray = JSON.stringify(event(email, { event: 'spamreport' }));
    expectRefused(await post('sendgrid', notArray, sendgridHeaders(sendgrid.privateKey, notArray)), 400);
    expect(await stateOf(email)).toEqual(UNTOUCHED);
  });
});

describe('Mailgun webhooks', () => {
  const body = (email: string, eventData: object, signature = mailgunSignature(MAILGUN_KEY)) => JSON.stringify({
    signature,
    'event-data': {
      id: `mg-${email}`, timestamp: Date.now() / 1000, recipient: email, 'log-level': 'error',
      message: { headers: { to: email, 'message-id': message(email).messageId.slice(1, -1), from: 'shop@example.com', subject: 'Your order' } },
      ...eventData,
    },
  });

  it('records a permanent failure as hard and a complaint, once; a reused token is refused', async () => {
    const email = 'mg.hard@example.org';
    const failed = { event: 'failed', severity: 'permanent', reason: 'bounce', 'delivery-status': { code: 550, message: '5.1.1 The email account does not exist', description: '' } };
    const first = body(email, failed);
    expect(await post('mailgun', first)).toEqual({ status: 200, body: { success: true, data: { events: 1, recorded: 1, ignored: 0 } } });
    const hardState = {
      events: [{ track_type: 'track.mail.bounced', bounce_type: 'hard', reason: undefined, message: '5.1.1 The email account does not exist\nCode: 550\nReason: bounce' }],
      suppression: { reason: 'bounced', source: 'report' }, contact: 'BOUNCED',
    };
    expect(await stateOf(email)).toEqual(hardState);
    const replay = await post('mailgun', first);
    expectRefused(replay, 401);
    expect(replay.body.error?.message).toMatch(/taken already/);
    expect((await post('mailgun', body(email, failed))).status).toBe(200); // the same event, a new token: recorded once
    expect(await stateOf(email)).toEqual(hardState);

    expect((await post('mailgun', body('mg.complaint@example.org', { event: 'complained' }))).body.data).toEqual({ events: 1, recorded: 1, ignored: 0 });
    expect(await stateOf('mg.complaint@example.org')).toMatchObject({ suppression: { reason: 'complained' }, contact: 'COMPLAINED' });
  });

  it('refuses a forged signature, an old timestamp, a body without its signature; nothing changes', async () => {
    const email = 'ses.untouched@example.org';
    const failed = { event: 'failed', severity: 'permanent' };
    expectRefused(await post('mailgun', body(email, failed, mailgunSignature('another-signing-key'))), 401);
    expectRefused(await post('mailgun', body(email, failed, mailgunSignature(MAILGUN_KEY, Math.floor(Date.now() / 1000) - 3600))), 401);
    expectRefused(await post('mailgun', JSON.stringify({ 'event-data': { event: 'failed' } })), 400);
    expectRefused(await post('mailgun', '[1, 2'), 400);
    expect(await stateOf(email)).toEqual(UNTOUCHED);
  });
});

describe('Postmark webhooks', () => {
  const record = (email: string, extra: object) => JSON.stringify({
    RecordType: 'Bounce', MessageStream: 'outbound', ID: 4323372036, Type: 'HardBounce', TypeCode: 1, Name: 'Hard bounce', Tag: '',
    MessageID: '883953f4-6105-42a2-a16a-77a8eac79483', Metadata: { 'herald-mail-id': message(email).mailId }, ServerID: 23,
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).', Details: 'smtp;550 5.1.1 unknown user',
    Email: email, From: 'shop@example.com', BouncedAt: new Date().toISOString(), DumpAvailable: true, Inactive: true, CanActivate: true, Subject: 'Your order',
    ...extra,
  });
  const auth = { authorization: basicAuth(POSTMARK.username, POSTMARK.password) };

  it('records a hard bounce and a spam complaint, found by the herald-mail-id metadata, once', async () => {
    const email = 'pm.hard@example.org';
    const body = record(email, {});
    expect(await post('postmark', body, auth)).toEqual({ status: 200, body: { success: true, data: { events: 1, recorded: 1, ignored: 0 } } });
    expect((await post('postmark', body, auth)).status).toBe(200);
    expect(await stateOf(email)).toEqual({
      events: [{ track_type: 'track.mail.bounced', bounce_type: 'hard', reason: undefined, message: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).\nsmtp;550 5.1.1 unknown user' }],
      suppression: { reason: 'bounced', source: 'report' }, contact: 'BOUNCED',
    });
    const complaint = record('pm.complaint@example.org', { RecordType: 'SpamComplaint', ID: 42, Type: 'SpamComplaint', TypeCode: 512, Name: 'Spam complaint' });
    expect((await post('postmark', complaint, auth)).body.data).toEqual({ events: 1, recorded: 1, ignored: 0 });
    expect(await stateOf('pm.complaint@example.org')).toMatchObject({ suppression: { reason: 'complained' }, contact: 'COMPLAINED' });
  });

  it('refuses other credentials or none, and a record that is neither a bounce nor a complaint; nothing changes', async () => {
    const email = 'ses.untouched@example.org';
    expectRefused(await post('postmark', record(email, {}), { authorization: basicAuth(POSTMARK.username, 'wrong-password') }), 401);
    expectRefused(await post('postmark', record(email, {})), 401);
    expectRefused(await post('postmark', record(email, { RecordType: 'Delivery' }), auth), 400);
    expect(await stateOf(email)).toEqual(UNTOUCHED);
  });
});

it('answers in the /v1 error format, and a body over the limit is 413', async () => {
  const answer = await post('postmark', 'x'.repeat(6 * 1024 * 1024), { authorization: basicAuth(POSTMARK.username, POSTMARK.password) });
  expectRefused(answer, 413);
  expect(answer.body.error?.type).toBe('payload_too_large');
});
