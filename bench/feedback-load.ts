// The `relays` scenario's phase (4): 1,000 bounce events from the four providers' webhooks, each as
// its provider signs it (bench/feedback-signing.ts: the tests' own keys, SNS's certificate
// served by a local HTTPS server the API's HTTPS GET is pointed at), about 1,000 messages that
// Herald really sent (one 1,000-recipient request through its API, worker and relay). Posted 20 at
// a time; timed from the first post to the last answer, then checked: one bounce event per message.
// Then every request is posted again (a provider's retries): still one each.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createAccount } from '../core/accounts/accounts';
import {
  basicAuth, mailgunSignature, makeTestPki, sendgridHeaders, sendgridKeys, signedSnsMessage, SNS_HOST, startFakeSns,
} from './feedback-signing';
import { composeBenchHerald, type BenchStack } from './herald-stack';
import { percentile, perSecond, round } from './stats';
import { log, runPool, type Teardown } from './support';

const MESSAGES = 1_000;
const CONCURRENCY = 20;
const SENDGRID_BATCH = 50;
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:herald-bench';
const CERT_URL = `https://${SNS_HOST}/SimpleNotificationService-bench.pem`;
const POSTMARK = { username: 'herald', password: 'bench-postmark-password' };
const MAILGUN_KEY = 'key-bench-mailgun-signing';

interface Sent { mailId: string; messageId: string; email: string }
interface Post { provider: string; body: string; headers: Record<string, string> }

export async function measureFeedbackWebhooks(stack: BenchStack, teardown: Teardown, dir: string): Promise<Record<string, unknown>> {
  const pki = makeTestPki();
  const fakeSns = await startFakeSns(pki, { [new URL(CERT_URL).pathname]: pki.signing.cert });
  teardown.defer('fake SNS', () => fakeSns.close());
  const sendgrid = sendgridKeys();
  const relaysFile = path.join(dir, 'feedback.json');
  fs.writeFileSync(relaysFile, JSON.stringify({
    relays: [{ name: 'main', url: stack.sink.url }],
    feedback: { mailgun: { signingKey: MAILGUN_KEY }, sendgrid: { publicKey: sendgrid.publicKey }, postmark: POSTMARK, ses: { topicArns: [TOPIC] } },
  }));
  const herald = composeBenchHerald(stack, teardown, {
    HERALD_MONGODB_DATABASE: 'herald_bench_feedback', HERALD_TASK_QUEUE: 'herald-bench-feedback', HERALD_RELAYS_FILE: relaysFile, SMTP_RELAY_URL: '',
  }, { httpsGet: fakeSns.httpsGet });
  const store = await herald.store();
  void (await herald.worker()).run();
  const api = await herald.apiServer();
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  const { account, transactionalKey } = await createAccount(store, 'benchfeedback');

  log(`relays: (4) ${MESSAGES} messages sent, then a bounce of each from the four providers' webhooks`);
  const emails = Array.from({ length: MESSAGES }, (_, i) => `fb${i}@example.test`);
  const answer = await fetch(`${base}/v1/mail/send`, {
    method: 'POST', headers: { authorization: `Bearer ${transactionalKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: { email: 'shop@example.com' }, subject: 'Your order', content: { text: 'Thanks' }, recipients: emails.map((email) => ({ to: { email } })) }),
  });
  if (answer.status !== 202) throw new Error(`the send was refused: ${answer.status}`);
  let rows: Sent[] = [];
  for (const deadline = Date.now() + 300_000; rows.length < MESSAGES; await new Promise((resolve) => setTimeout(resolve, 200))) {
    if (Date.now() > deadline) throw new Error(`${rows.length} of ${MESSAGES} messages in the ledger`);
    rows = await store.ledger.find({ account, _outcome_of: { $exists: true } }, { projection: { _ledger: 1, email: 1 } }).toArray()
      .then((found) => found.map((row) => ({ mailId: row._outcome_of, messageId: row._ledger.messageId, email: row.email })));
  }

  const posts = webhookPosts(rows, sendgrid.privateKey, pki.signing.key);
  /** Each request's time to its answer, by provider. */
  const latencies = new Map<string, number[]>();
  const postAll = async () => {
    const statuses: number[] = [];
    await runPool(posts.length, CONCURRENCY, 300_000, async (i) => {
      const { provider, body, headers } = posts[i];
      const sentAt = performance.now();
      const response = await fetch(`${base}/v1/feedback/${provider}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      await response.arrayBuffer();
      statuses.push(response.status);
      latencies.set(provider, [...(latencies.get(provider) ?? []), performance.now() - sentAt]);
    });
    return statuses;
  };
  const startedAt = performance.now();
  const statuses = await postAll();
  const seconds = (performance.now() - startedAt) / 1000;
  const bounced = () => store.events.countDocuments({ account, track_type: 'track.mail.bounced' });
  const recorded = await bounced();
  const p50ByProvider = Object.fromEntries([...latencies].map(([provider, times]) => [provider, round(percentile(times, 50), 1)]));
  // Every provider retries: the same requests again (Mailgun's signed anew, its tokens being used once).
  refreshMailgunTokens(posts);
  const retried = await postAll();
  const afterRetries = await bounced();
  return {
    webhook_events: MESSAGES,
    webhook_requests: posts.length,
    webhook_record_s: round(seconds, 2),
    webhook_events_per_s: perSecond(MESSAGES, seconds * 1000),
    goal_webhook_met: seconds <= 5 && recorded === MESSAGES,
    webhook_events_recorded: recorded,
    webhook_p50_ms_by_provider: p50ByProvider,
    webhook_refused: statuses.filter((status) => status !== 200).length,
    webhook_events_after_retries: afterRetries,
    webhook_retries_refused: retried.filter((status) => status !== 200).length,
  };
}

/** A hard bounce of each message, a quarter from each provider: SendGrid in batches of 50, the others one event a request. */
function webhookPosts(sent: Sent[], sendgridKey: crypto.KeyObject, snsKey: string): Post[] {
  const posts: Post[] = [];
  const byProvider = [0, 1, 2, 3].map((p) => sent.filter((_, i) => i % 4 === p));
  const [sg, mg, pm, ses] = byProvider;
  for (let i = 0; i < sg.length; i += SENDGRID_BATCH) {
    const body = JSON.stringify(sg.slice(i, i + SENDGRID_BATCH).map((m) => ({
      email: m.email, timestamp: Math.floor(Date.now() / 1000), 'smtp-id': m.messageId, event: 'bounce', type: 'bounce',
      reason: '550 5.1.1 No such user', status: '5.1.1', sg_event_id: `sg-${m.mailId}`, sg_message_id: 'bench.filter0001',
    })));
    posts.push({ provider: 'sendgrid', body, headers: sendgridHeaders(sendgridKey, body) });
  }
  for (const m of mg) {
    const eventData = {
      id: `mg-${m.mailId}`, timestamp: Date.now() / 1000, event: 'failed', severity: 'permanent', recipient: m.email,
      'delivery-status': { code: 550, message: '5.1.1 No such user' }, message: { headers: { 'message-id': m.messageId.slice(1, -1) } },
    };
    posts.push({ provider: 'mailgun', body: JSON.stringify({ signature: mailgunSignature(MAILGUN_KEY), 'event-data': eventData }), headers: {} });
  }
  for (const m of pm) {
    posts.push({
      provider: 'postmark', headers: { authorization: basicAuth(POSTMARK.username, POSTMARK.password) },
      body: JSON.stringify({
        RecordType: 'Bounce', ID: posts.length + 1, Type: 'HardBounce', TypeCode: 1, MessageID: crypto.randomUUID(), Metadata: { 'herald-mail-id': m.mailId },
        Description: 'Unknown user', Details: 'smtp;550 5.1.1 No such user', Email: m.email, BouncedAt: new Date().toISOString(),
      }),
    });
  }
  for (const m of ses) {
    const bounce = {
      notificationType: 'Bounce',
      bounce: { feedbackId: `ses-${m.mailId}`, bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: m.email, diagnosticCode: 'smtp; 550 5.1.1 No such user' }] },
      mail: { messageId: crypto.randomUUID(), destination: [m.email], commonHeaders: { messageId: m.messageId } },
    };
    posts.push({
      provider: 'ses', headers: {},
      body: JSON.stringify(signedSnsMessage({ Type: 'Notification', MessageId: crypto.randomUUID(), TopicArn: TOPIC, Message: JSON.stringify(bounce) }, snsKey, CERT_URL)),
    });
  }
  return posts;
}

/** Mailgun's retry of a request comes with a new token (a token is taken once). */
function refreshMailgunTokens(posts: Post[]): void {
  for (const post of posts) {
    if (post.provider !== 'mailgun') continue;
    const body = JSON.parse(post.body) as { signature: unknown };
    body.signature = mailgunSignature(MAILGUN_KEY);
    post.body = JSON.stringify(body);
  }
}
