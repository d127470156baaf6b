import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { readAccountSettings } from '../../core/accounts/settings';
import { errors } from '../../core/shared/errors';
import { DEFAULT_LIMITS } from '../../core/shared/limits';
import { ALLOWED_HEADERS } from '../../core/transactional/headers';
import { findTemplateForSend } from '../../core/content/templates';
import type { AcceptDeps } from '../../core/transactional/accept';
import { cancelBatch } from '../../core/transactional/cancel-batch';
import { acceptOnce, enforceSendPolicy } from '../../core/transactional/submit';
import { ATTACHMENT_EXTENSIONS, MAX_ATTACHMENTS } from '../../core/transactional/attachments';
import { readBody } from '../middleware/body';
import type { OperationSpec } from '../openapi/operation';
import { transactionalAuth } from './auth';
import { MAX_UTM_LENGTH, sendSchema } from './send-schema';
import { validateSendBody } from './validate-send';

/** The spec's 10MB request limit, attachments included. */
export const SEND_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/** One string may fill the request (an attachment's data); the schema bounds every other field. */
const SEND_LIMITS = { ...DEFAULT_LIMITS, maxStringLength: SEND_BODY_LIMIT_BYTES };

export type TransactionalDeps = AcceptDeps;

/** The transactional HTTP API under /v1. Errors are rendered in its shape by the app's error boundary. */
export function transactionalRouter(deps: TransactionalDeps): Router {
  const router = new Router({ prefix: '/v1' });

  // Validate, apply the account's policy, count against its monthly limit, record the accepted
  // request, start its workflow; 202 only once Temporal has it. Authenticate before reading up
  // to 10 MB of body. The order of the checks is documented in sendOperations and the README.
  router.post('/mail/send', transactionalAuth(deps.store), requireJson, readBody({ types: ['json'], limitBytes: SEND_BODY_LIMIT_BYTES, limits: SEND_LIMITS }), async (ctx) => {
    const account: string = ctx.state.account;
    // template_id is resolved among this account's templates only, and merged before the request is stored.
    const { body, fingerprint } = await validateSendBody(ctx.request.body, (id) => findTemplateForSend(deps.store, account, id));
    const settings = await readAccountSettings(deps.store, account);
    if (!settings) throw errors.unauthorized('Invalid API key'); // the account was removed after the key was read
    enforceSendPolicy(settings, account, { from: body.from.email, hasAttachments: body.attachments !== undefined });
    // A retry with the Idempotency-Key of an accepted request gets that request's answer, and starts nothing.
    const key = ctx.get('idempotency-key');
    const { accepted, replayed } = await acceptOnce(deps, { account, source: 'http', body }, settings, key ? { key, fingerprint: fingerprint() } : undefined);
    if (!replayed) ctx.state.log.info({ account, sendRequest: accepted.requestId, recipients: body.recipients.length }, 'send accepted');
    ctx.status = 202;
    // The body stays exactly the original's; the batch id (for cancelling, and the events) comes in a header.
    ctx.set('Herald-Batch-Id', accepted.batchId);
    ctx.body = { success: true, data: '' };
  });

  // Cancels every request of the batch not yet sent: each workflow stops before its next message
  // and records what was not sent as dropped. Already finished requests are left as they are.
  router.delete('/mail/batches/:batchId', transactionalAuth(deps.store), async (ctx) => {
    const account: string = ctx.state.account;
    const requests = await cancelBatch(deps, account, ctx.params.batchId);
    ctx.body = { success: true, data: { batch_id: ctx.params.batchId, requests } };
  });

  return router;
}

export const sendOperations: OperationSpec[] = [{
  method: 'post', path: '/v1/mail/send', id: 'sendMail', tag: 'Transactional', auth: 'transactional', nullMeansAbsent: 'every',
  summary: 'Send a message to one or more recipients',
  description: [
    'Accepted once recorded and handed to Temporal; delivery follows. The body must be `application/json`, 10 MB at most.',
    `Beyond the schema: \`content\` needs \`html\` or \`text\`; \`headers\` may name only \`X-…\` headers and ${ALLOWED_HEADERS.join(', ')};`,
    '`template_id` names an HTML or MJML template of the account by the id its templates API gives (`/12`, `/3/12`; the original\'s `etpl_…` ids do not exist here):',
    'its HTML, subject, from and reply_to fill what the request leaves out (content.html and content.text each by itself), so from, subject and content',
    'are required only without it; an unknown id, another account\'s or a folder\'s is a `validation_error` on `template_id`, and so is an error in a value the template gives.',
    `\`content.html\` and \`content.text\` are at most 300 KB each counted in UTF-8 bytes; each \`tracking.analytics\` utm parameter at most ${MAX_UTM_LENGTH} characters.`,
    '`null` and empty collections mean absent; `batch_code` (at most 30 characters as given) is lower-cased and keeps only `a-z` and `0-9`.',
    'Email addresses are RFC 5322 addresses in their common dot-atom form: quoted local parts (`"a b"@x.example`), domain literals (`a@[192.0.2.1]`)',
    'and domains without a dot are refused.',
    `\`attachments\` (at most ${MAX_ATTACHMENTS}) must each be named \`<name>.<ext>\` with ext one of ${ATTACHMENT_EXTENSIONS.join(', ')} (no \`/\`, \`\\\` or control characters),`,
    'declare a `mime_type` of that format, and hold in `data` strict base64 (no line breaks) of content of that format, checked by the bytes',
    '(txt and csv: UTF-8 without NUL bytes); they are sent with every message of the request.',
    'Checks, in order: the key (401); the body\'s type, size and structure (400, 413); validation, every invalid field at once (400 `validation_error`);',
    'the account\'s policy: a From domain not among its sender domains (403 `forbidden`, "origin address not allowed"; any address when it has none; exact domains, not subdomains),',
    'attachments when the account does not allow them (403 `forbidden`); its monthly limit, counted in messages (one per `recipients` element) per calendar month in UTC',
    '(503 `service_unavailable` naming the MONTHLY limit; a request that does not fit counts nothing); then acceptance (202).',
    'While more than 100 of the account\'s requests wait for its sender, the 202 of a new one (already stored) waits until that is no longer so, 1 s at most.',
    'The answer carries the batch id of the events in a `Herald-Batch-Id` header: `<account>_transactional_<batch_code or request id>`.',
    '`launch_date` (ISO 8601 with `Z` or an offset) holds the request until then, at any horizon; a past one sends at once.',
    'An `Idempotency-Key` header (1 to 255 characters) makes a retry start nothing twice: the same key with the same body within 24 hours is answered as the first',
    'request was (202 and its `Herald-Batch-Id`); with another body 400 `bad_request`; while the first is still being accepted 503 (retry).',
  ].join(' '),
  body: sendSchema,
  status: 202, response: 'Accepted',
  responseSchema: { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data: { const: '' } } },
}, {
  method: 'delete', path: '/v1/mail/batches/{batchId}', id: 'cancelBatch', tag: 'Transactional', auth: 'transactional',
  summary: 'Cancel every not-yet-sent request of a batch',
  description: 'A request waiting for its `launch_date` is not sent; one being sent stops before its next message. What was not sent is recorded '
    + 'as dropped (`track.mail.dropped`). Requests already sent are left as they are. The batch id is the `Herald-Batch-Id` of the send '
    + '(`<account>_transactional_<batch_code or request id>`); an unknown one cancels nothing; one over 200 characters is a `validation_error`.',
  status: 200, response: '`{"success": true, "data": {"batch_id", "requests"}}`: how many requests were asked to stop', errors: [400],
}];

/** The spec names application/json the only accepted type, and its error table has no 415. */
async function requireJson(ctx: Context, next: Next) {
  if (!ctx.is('json')) throw errors.badRequest('Content-Type must be application/json');
  await next();
}
