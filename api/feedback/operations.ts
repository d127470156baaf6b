// The feedback webhooks in the OpenAPI document (api/openapi/operations.ts). Their bodies are the
// providers' own formats, read as raw text (the signatures are over it), so each is described
// rather than given a schema.
import type { OperationSpec } from '../openapi/operation';
import { FEEDBACK_BODY_LIMIT_BYTES } from './router';

const summarySchema = {
  type: 'object', required: ['success', 'data'],
  properties: {
    success: { const: true },
    data: {
      type: 'object',
      properties: {
        events: { type: 'integer', description: 'Events in the request.' },
        recorded: { type: 'integer', description: 'Bounces and complaints recorded (a repeat is recorded once).' },
        ignored: { type: 'integer', description: 'Events that record nothing: another type, another recipient, a message Herald did not send.' },
        confirmed: { const: true, description: 'SES only: an SNS subscription confirmed.' },
      },
    },
  },
} as const;

const COMMON = [
  'Not configured in the relays file: 404. Each event is recorded once however often the provider sends it; an event about no message Herald',
  'sent is answered 200 and records nothing (so the provider stops retrying). A malformed body is 400, a signature or credentials that do not',
  `hold 401, the store unavailable 503 (the provider retries); at most ${FEEDBACK_BODY_LIMIT_BYTES / (1024 * 1024)} MB (413). See docs/relays-and-feedback.md.`,
].join(' ');

const operation = (provider: string, summary: string, description: string, mediaType = 'application/json'): OperationSpec => ({
  method: 'post', path: `/v1/feedback/${provider}`, id: `postFeedback${provider[0].toUpperCase()}${provider.slice(1)}`, tag: 'Feedback', auth: 'none',
  summary, description: `${description} ${COMMON}`,
  rawBody: { mediaType, description: `The provider's webhook body, as it sends it.` },
  status: 200, response: 'Taken: `data` counts the events', responseSchema: summarySchema, errors: [401, 404, 503],
});

export const feedbackOperations: OperationSpec[] = [
  operation('ses', 'Amazon SES bounces and complaints, through an SNS HTTPS subscription', [
    'SNS messages (SubscriptionConfirmation: confirmed by GETting its SubscribeURL; Notification: SES\'s Bounce and Complaint notifications;',
    'UnsubscribeConfirmation: ignored), their signature (SignatureVersion 1 or 2) checked with the certificate of their SigningCertURL,',
    'which must be on an https://sns.<region>.amazonaws.com host. Only the topics of `feedback.ses.topicArns` (another topic: 403).',
  ].join(' '), 'text/plain'),
  operation('sendgrid', 'SendGrid Event Webhook (signed)', [
    'An array of events, signed (`X-Twilio-Email-Event-Webhook-Signature`, ECDSA over `X-Twilio-Email-Event-Webhook-Timestamp` and the body)',
    'with the key of `feedback.sendgrid.publicKey`; a timestamp over 10 minutes old is refused. `bounce` (type bounce: hard, blocked: soft) and',
    '`spamreport` (a complaint) are recorded, found by `smtp-id`.',
  ].join(' ')),
  operation('mailgun', 'Mailgun webhooks (failed, complained)', [
    '`{signature: {timestamp, token, signature}, "event-data"}`, the HMAC-SHA256 of timestamp and token with `feedback.mailgun.signingKey`;',
    'each token is taken once and a timestamp over 10 minutes old is refused. `failed` (permanent: hard, temporary: soft) and `complained`.',
  ].join(' ')),
  operation('postmark', 'Postmark Bounce and Spam Complaint webhooks', [
    'Basic authentication with `feedback.postmark` (written in the webhook URL). The message is found by `Metadata["herald-mail-id"]`.',
  ].join(' ')),
];
