// The names an automation run's records and messages carry: store ids (the run, its event), the
// request id, mail_id and batch id of its email steps, their mail_type. Pure definitions: the
// workflow's activities, the online version and the tests read them here.
import { mailIdOf } from '../sending/plan';

/** The events of an automation's messages carry this mail_type. */
export const AUTOMATION_MAIL_TYPE = 'automation';

/** The contact source of a contact a trigger event created. */
export const TRIGGER_CONTACT_SOURCE = 'CUSTOM_TRIGGER';

/** The stored trigger event's `_id` (TriggerEventDoc). */
export const triggerEventDocId = (account: string, eventId: string) => `${account}:${eventId}`;

/** The run record's `_id` (AutomationRunDoc): one run per automation and event. */
export const automationRunDocId = (account: string, automationId: number, eventId: string) => `${account}:${automationId}:${eventId}`;

/** The automation's `_id` (AutomationDoc). */
export const automationDocId = (account: string, automationId: number) => `${account}:${automationId}`;

/**
 * The request id a run's messages carry in the ledger (MessageDoc.requestId) and in their
 * tracking tokens: `automation-<automation id>-<event id>`. Transactional request ids are hex,
 * campaigns' start with `campaign-`.
 */
export function automationRequestId(automationId: number, eventId: string): string {
  return `automation-${automationId}-${eventId}`;
}

/** The automation and event a request id names, or undefined for another kind of request. */
export function parseAutomationRequestId(requestId: string): { automationId: number; eventId: string } | undefined {
  const match = /^automation-(\d{1,15})-([A-Za-z0-9_-]{1,100})$/.exec(requestId);
  return match ? { automationId: Number(match[1]), eventId: match[2] } : undefined;
}

/** The mail_id of email step `step` of the run: stable, so a replayed or retried step finds its ledger row. */
export function automationMailId(account: string, automationId: number, eventId: string, step: number): string {
  return mailIdOf(account, automationRequestId(automationId, eventId), step);
}

/** The batch_id of an automation's events (every run of the automation shares it). */
export function automationBatchId(account: string, automationId: number): string {
  return `${account}_automation_${automationId}`;
}
