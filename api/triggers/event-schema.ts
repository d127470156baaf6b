// The custom trigger event's body as the intake checks it (core/triggers/event.ts holds the rules).
// Keys the schema does not name are dropped, not refused; every invalid field is reported at once.
import { MAX_CONTACT_LENGTH, MAX_TRIGGER_KEY_LENGTH, type RawTriggerEvent } from '../../core/triggers/event';
import { validator } from '../validation';

/** A trigger key: the length and the characters are checked apart, so each has its own message. */
export const triggerKeySchema = {
  type: 'string', minLength: 1, maxLength: MAX_TRIGGER_KEY_LENGTH, pattern: '^[a-z0-9_]*$',
  description: `Lowercase letters, digits and underscore, 1 to ${MAX_TRIGGER_KEY_LENGTH} characters. Automations whose trigger key equals it exactly start.`,
} as const;

export const triggerEventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['trigger_key', 'contact'],
  properties: {
    trigger_key: triggerKeySchema,
    contact: {
      type: 'string', maxLength: MAX_CONTACT_LENGTH, format: 'email',
      description: 'The contact\'s email address (lowercased); the contact is created in the account if missing.',
    },
    context: {
      type: 'object',
      description: 'Free keys and values (nesting allowed), usable as `${key}` in the automation\'s messages. Absent: `{}`.',
    },
  },
} as const;

export const validateTriggerEvent = validator<RawTriggerEvent>(triggerEventSchema);
