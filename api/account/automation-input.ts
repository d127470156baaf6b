// What the automation routes accept, as JSON or as form bodies with PHP-style arrays
// (`steps[0][type]=wait&steps[0][duration]=P1D`). The schema checks types and lengths; the rules
// between fields (which fields each step type takes, templates, MJML, durations) are
// core/automations/input.ts's, so they hold whatever the interface.
import { MAX_STEPS, MAX_SUBJECT_LENGTH, TRIGGER_TYPES, type AutomationInput } from '../../core/automations/input';
import { MAX_TRIGGER_KEY_LENGTH } from '../../core/triggers/event';
import { validator } from '../validation';
import { prepare, tags } from './campaign-input';
import { description, name } from './schemas';

const email = { type: 'string', maxLength: 254, format: 'email' } as const;
const content = (what: string) => ({ type: 'string', description: `${what} At most 1 MB (UTF-8).` }) as const;

const trigger = {
  type: 'object', additionalProperties: false, required: ['type', 'key'],
  description: 'What starts the automation. `custom`: a custom trigger event whose `trigger_key` equals `key` exactly.',
  properties: {
    type: { type: 'string', enum: TRIGGER_TYPES, description: '`custom`, the only type for now.' },
    key: { type: 'string', maxLength: MAX_TRIGGER_KEY_LENGTH, description: 'Lowercase letters, digits and underscore (`^[a-z0-9_]{1,30}$`), as an event\'s `trigger_key`.' },
  },
} as const;

const step = {
  type: 'object', additionalProperties: false, required: ['type'],
  description: 'An email step `{type: "email", subject, from, fromName?, replyTo?, html | mjml, text?}` or a wait step `{type: "wait", duration}`.',
  properties: {
    type: { type: 'string', enum: ['email', 'wait'] },
    subject: { type: 'string', maxLength: MAX_SUBJECT_LENGTH, description: 'Email: required, one line; a template of the dialect (`${name}`, `${contact.first_name}`).' },
    from: { ...email, description: 'Email: the sender\'s address, required.' },
    fromName: { type: 'string', maxLength: 100, description: 'Email: the sender\'s name.' },
    replyTo: { ...email, description: 'Email: a Reply-To address.' },
    html: content('Email: the HTML, a template of the dialect. Exactly one of html and mjml.'),
    mjml: content('Email: an MJML document, compiled when saved (an error is a VALIDATION_ERROR naming its line).'),
    text: content('Email: a plain-text part, a template of the dialect.'),
    duration: {
      type: 'string', maxLength: 40,
      description: 'Wait: an ISO 8601 duration, PnW or PnDTnHnMnS (P2D, PT3H, PT1H30M, P1W; whole numbers, no years or months), 1 second to 365 days.',
    },
  },
} as const;

const fields = {
  name, comments: description, tags, trigger,
  steps: { type: 'array', maxItems: MAX_STEPS, items: step, description: `At most ${MAX_STEPS} steps, run in order; a PUT giving steps replaces them all.` },
} as const;

export const automationCreateSchema = { type: 'object', additionalProperties: false, required: ['name', 'trigger'], properties: fields } as const;
export const automationUpdateSchema = { type: 'object', additionalProperties: false, properties: fields } as const;

const validateCreate = validator<AutomationInput & Required<Pick<AutomationInput, 'name' | 'trigger'>>>(automationCreateSchema);
const validateUpdate = validator<AutomationInput>(automationUpdateSchema);

export const readAutomationCreate = (body: unknown) => validateCreate(prepare(body, []));
export const readAutomationUpdate = (body: unknown) => validateUpdate(prepare(body, []));
