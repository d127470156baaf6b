// Providers' bounce and complaint reports by webhook: POST /v1/feedback/{ses,sendgrid,mailgun,postmark}.
// The edge: each route authenticates the request as its provider does (core/bounces/<provider>.ts
// checks the signature or the credentials), reads the body within its limit (the raw text: the
// signatures are over it), maps the provider's payload to events and records them
// (core/bounces/provider-intake.ts). Errors come in the /v1 shape (api/render.ts). A provider
// that is not configured in the relays file answers 404.
//
// Answers: 200 `{success: true, data: {events, recorded, ignored}}` once every event is stored,
// events about no message Herald sent included (recorded nothing, 200 all the same: a provider
// retries anything else, and such an event can never succeed); 400 for a body that is not the
// provider's, 401 for a signature, token or credentials that do not hold (or a replay), 403 for an
// SNS topic not listed, 413 over the size limit, 503 when the store (or, for SNS, AWS) cannot be
// reached now: the provider retries.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { HttpsGet } from '../../adapters/http/https-get';
import type { Store } from '../../adapters/store/store';
import type { FeedbackSettings } from '../../core/bounces/feedback-settings';
import { claimNonce } from '../../core/bounces/nonces';
import { MAILGUN_TOKEN_TTL_MS, mailgunEvent, mailgunSignatureOf, verifyMailgunSignature } from '../../core/bounces/mailgun';
import { checkPostmarkAuth, postmarkEvent } from '../../core/bounces/postmark';
import type { FeedbackProvider } from '../../core/bounces/provider-event';
import { recordProviderEvents, type FeedbackSummary } from '../../core/bounces/provider-intake';
import { SENDGRID_SIGNATURE_HEADER, SENDGRID_TIMESTAMP_HEADER, sendgridEvents, verifySendgridSignature } from '../../core/bounces/sendgrid';
import { sesEvents } from '../../core/bounces/ses';
import { snsEnvelopeOf, snsMessageJson, SnsVerifier } from '../../core/bounces/sns';
import { errors } from '../../core/shared/errors';
import { checkJsonDepth, checkStructure, DEFAULT_LIMITS, LimitError } from '../../core/shared/limits';
import { readText } from '../middleware/body';

/** A SendGrid batch holds many events; a few MB is ample for any provider's request. */
export const FEEDBACK_BODY_LIMIT_BYTES = 5 * 1024 * 1024;

export interface FeedbackDeps {
  store: Store;
  feedback: { settings: FeedbackSettings; httpsGet: HttpsGet };
}

const NAMES: Record<FeedbackProvider, string> = { ses: 'Amazon SES (SNS)', sendgrid: 'SendGrid', mailgun: 'Mailgun', postmark: 'Postmark' };

export function feedbackRouter(deps: FeedbackDeps): Router {
  const router = new Router({ prefix: '/v1/feedback' });
  const { store } = deps;
  const { settings } = deps.feedback;
  const sns = new SnsVerifier(deps.feedback.httpsGet);

  router.post('/ses', async (ctx) => {
    const ses = configured(settings.ses, 'ses');
    const message = snsEnvelopeOf(await readJson(ctx));
    await sns.verify(message, ses.topicArns);
    if (message.Type === 'SubscriptionConfirmation') {
      await sns.confirm(message);
      ctx.state.log.info({ provider: 'ses', topicArn: message.TopicArn }, 'SNS subscription confirmed');
      answer(ctx, { confirmed: true });
      return;
    }
    if (message.Type === 'UnsubscribeConfirmation') {
      answer(ctx, { events: 0, recorded: 0, ignored: 0 });
      return;
    }
    const events = sesEvents(snsMessageJson(message), message.MessageId);
    await record(ctx, 'ses', () => recordProviderEvents(store, 'ses', events));
  });

  router.post('/sendgrid', async (ctx) => {
    const sendgrid = configured(settings.sendgrid, 'sendgrid');
    const text = await readText(ctx, FEEDBACK_BODY_LIMIT_BYTES);
    verifySendgridSignature(sendgrid.publicKey, ctx.get(SENDGRID_SIGNATURE_HEADER), ctx.get(SENDGRID_TIMESTAMP_HEADER), text);
    const events = sendgridEvents(parseJson(text));
    await record(ctx, 'sendgrid', () => recordProviderEvents(store, 'sendgrid', events));
  });

  router.post('/mailgun', async (ctx) => {
    const mailgun = configured(settings.mailgun, 'mailgun');
    const body = await readJson(ctx);
    const signature = mailgunSignatureOf(body);
    verifyMailgunSignature(mailgun.signingKey, signature);
    const event = mailgunEvent(body);
    const claim = await claimNonce(store, 'mailgun', signature.token, new Date(Date.now() + MAILGUN_TOKEN_TTL_MS));
    try {
      await record(ctx, 'mailgun', () => recordProviderEvents(store, 'mailgun', [event]));
    } catch (error) {
      await claim.giveBack().catch(() => undefined); // not taken: Mailgun's retry (the same token) must be
      throw error;
    }
  });

  router.post('/postmark', async (ctx) => {
    checkPostmarkAuth(configured(settings.postmark, 'postmark'), ctx.get('authorization')); // before reading any body
    const text = await readText(ctx, FEEDBACK_BODY_LIMIT_BYTES);
    const event = postmarkEvent(parseJson(text), text);
    await record(ctx, 'postmark', () => recordProviderEvents(store, 'postmark', [event]));
  });

  return router;
}

function configured<T>(value: T | undefined, provider: FeedbackProvider): T {
  if (!value) throw errors.notFound(`Feedback from ${NAMES[provider]} is not configured: add feedback.${provider} to the relays file (HERALD_RELAYS_FILE)`);
  return value;
}

async function record(ctx: Context, provider: FeedbackProvider, take: () => Promise<FeedbackSummary>): Promise<void> {
  const summary = await take();
  ctx.state.log.info({ provider, ...summary }, 'provider feedback taken');
  answer(ctx, summary);
}

function answer(ctx: Context, data: object): void {
  ctx.status = 200;
  ctx.body = { success: true, data };
}

async function readJson(ctx: Context): Promise<unknown> {
  return parseJson(await readText(ctx, FEEDBACK_BODY_LIMIT_BYTES));
}

/** JSON within the structure limits every body has; SNS posts it as text/plain, so the media type is not checked. */
function parseJson(text: string): unknown {
  if (text.trim() === '') throw errors.badRequest('The request has no body');
  try {
    checkJsonDepth(text, DEFAULT_LIMITS.maxDepth);
    const value: unknown = JSON.parse(text);
    checkStructure(value, DEFAULT_LIMITS);
    return value;
  } catch (error) {
    if (error instanceof LimitError || error instanceof RangeError) throw errors.badRequest(`Request body refused: ${error.message}`);
    throw errors.badRequest('Request body is not valid JSON');
  }
}
