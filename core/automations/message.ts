// An automation's email step made into one message with the send engine's planning
// (core/sending/plan.ts), as campaigns and transactional requests are: the step is a transactional
// send body (tracking as the transactional defaults: opens and clicks tracked), compiled by the
// transactional renderer (its cache is by source: every run of an automation shares one
// compilation) and spliced into its MIME skeleton. The model is the event's context with the contact beside it:
// `{...context, contact}` (core/campaigns/contact-model.ts), so `${contact.*}` wins over a
// context key named `contact`.
import type { AutomationEmailStep, FieldDoc, TriggerEventDoc } from '../../adapters/store/store';
import type { Model } from '../content/dialect/dialect';
import { contentRenderer, type LinkContext, type MessageIdentity, type Personalised } from '../content/personalise';
import { bodySkeleton, composeCopy, listIdOf, messageIdHost, messageIdOf, plannedMessage, type PlanContext, type PlannedMessage } from '../sending/plan';
import type { Recipient, SendRequestBody } from '../transactional/request';
import { contactModel, displayName, fieldNamesOf, type ModelContact } from '../campaigns/contact-model';
import { AUTOMATION_MAIL_TYPE, automationBatchId, automationMailId, automationRequestId } from './model';

/** Which message of which run: the step's index numbers it. `tags`: the automation's. */
export interface AutomationMessageRef { account: string; automationId: number; eventId: string; step: number; email: string; tags: string[] }

/** The message's tracking identity (its tokens sign it). */
export function identityOf(ref: AutomationMessageRef): MessageIdentity {
  return {
    account: ref.account,
    requestId: automationRequestId(ref.automationId, ref.eventId),
    index: ref.step,
    mailId: automationMailId(ref.account, ref.automationId, ref.eventId, ref.step),
    batchId: automationBatchId(ref.account, ref.automationId),
    email: ref.email,
  };
}

/**
 * The message without its content: ids and the subject of its events. What a dropped or failed
 * outcome records (its content is never built); `raw` throws.
 */
export function automationMessage(
  ref: AutomationMessageRef, mtaHost: string, raw = (): Buffer => { throw new Error('this message has no content'); }, messageId?: string,
): PlannedMessage {
  return plannedMessage(identityOf(ref), mtaHost, raw, { tags: ref.tags, mail_type: AUTOMATION_MAIL_TYPE, messageId });
}

/** The event's context as stored (one JSON string); anything but an object is an empty context. */
export function eventContext(event: Pick<TriggerEventDoc, 'context'>): Model {
  const value: unknown = JSON.parse(event.context || '{}');
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Model) : {};
}

/** The model of a run's messages: the context's keys, and `contact` (which a context key of that name does not hide). */
export function automationModel(context: Model, contact: ModelContact, fields: readonly FieldDoc[]): Model {
  return { ...context, contact: contactModel(contact, fieldNamesOf(fields)) };
}

/** The step as a transactional send body (no recipients: the contact is the one). */
export function automationSendBody(step: AutomationEmailStep, tags: string[]): SendRequestBody {
  const name = step.fromName?.trim();
  return {
    from: name ? { email: step.from, name } : { email: step.from },
    ...(step.replyTo ? { reply_to: { email: step.replyTo } } : {}),
    subject: step.subject,
    content: { html: step.html, ...(step.text ? { text: step.text } : {}) },
    recipients: [],
    tags,
  };
}

/** The contact as the message's recipient, its model as the substitutions. */
function recipientOf(contact: ModelContact, model: Model): Recipient {
  const name = displayName(contact);
  return { to: name ? { email: contact.email, name } : { email: contact.email }, substitutions: model };
}

/** The step's copy for the contact: subject, HTML and text rendered, with the message's own signed links. */
export function renderAutomationCopy(
  step: AutomationEmailStep, ref: AutomationMessageRef, contact: ModelContact, model: Model, links: LinkContext, pixel = true,
): { body: SendRequestBody; recipient: Recipient; copy: Personalised } {
  const body = automationSendBody(step, ref.tags);
  if (!pixel) body.tracking = { open: { enable: false } };
  const recipient = recipientOf(contact, model);
  return { body, recipient, copy: contentRenderer(body, links)(recipient, identityOf(ref)) };
}

/**
 * The step's message to the contact, rendered and composed now (not when the sender asks for its
 * bytes): a content that cannot be built throws here, before anything is sent, so the caller
 * records it failed instead of the send loop taking it for relay trouble and retrying.
 */
export async function buildAutomationEmail(
  step: AutomationEmailStep, ref: AutomationMessageRef, contact: ModelContact, model: Model, context: PlanContext,
): Promise<{ message: PlannedMessage; sender: string }> {
  const { mtaHost, links } = context;
  const { body, recipient, copy } = renderAutomationCopy(step, ref, contact, model, links);
  const idHost = messageIdHost(mtaHost, body.from.email);
  const messageId = messageIdOf(identityOf(ref).mailId, idHost);
  const raw = composeCopy(await bodySkeleton(body), recipient, copy, { messageId, listId: listIdOf(ref.account, idHost) });
  return { message: automationMessage(ref, mtaHost, () => raw, messageId), sender: body.from.email };
}
