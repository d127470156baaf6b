// A custom trigger event as the intake takes it (the spec's "Custom trigger event"): its key,
// the contact's address and a free context. The body is checked against its schema at the door
// (api/triggers/event-schema.ts, built from the rules below); this is what the checked body
// becomes.

/** A trigger key: lowercase letters, digits and underscore, 1 to 30 characters (an automation's trigger key too). */
export const TRIGGER_KEY = /^[a-z0-9_]{1,30}$/;
export const MAX_TRIGGER_KEY_LENGTH = 30;
/** A contact's address: the longest an SMTP path allows. */
export const MAX_CONTACT_LENGTH = 254;

export function isTriggerKey(value: unknown): value is string {
  return typeof value === 'string' && TRIGGER_KEY.test(value);
}

/** The body as its schema lets it through. */
export interface RawTriggerEvent { trigger_key: string; contact: string; context?: Record<string, unknown> }

/** An event ready to accept: its key, the contact lowercased, the context (`{}` when none was given). */
export interface TriggerEvent { key: string; email: string; context: Record<string, unknown> }

export function toTriggerEvent(raw: RawTriggerEvent): TriggerEvent {
  return { key: raw.trigger_key, email: raw.contact.toLowerCase(), context: raw.context ?? {} };
}
