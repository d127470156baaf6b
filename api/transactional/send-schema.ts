// JSON schema of POST /v1/mail/send, with the spec's limits. Keys the schema does not name are
// dropped (existing SDKs send a few undocumented ones), so what is stored is only what Herald
// validated; free-form parts (substitutions) are bounded here and by the door's structure limits.
// null and empty collections mean absent (stripped before this). from, subject and content are
// required unless template_id names a template, whose values fill them before this schema runs
// (core/transactional/send-template.ts), so a stored request always has them. Attachments'
// content is checked beyond the schema, by core/transactional/attachments.ts.
import { FILE_NAME_PATTERN, MAX_ATTACHMENTS, MAX_FILE_NAME_LENGTH, MAX_MIME_TYPE_LENGTH, MIME_TYPE_PATTERN } from '../../core/transactional/attachments';

const address = (nameMax: number) => ({
  type: 'object',
  required: ['email'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', format: 'email', maxLength: 320 },
    name: { type: 'string', maxLength: nameMax },
  },
}) as const;

const addressList = { type: 'array', maxItems: 10, items: address(100) } as const;
/** A substitution model: any JSON, each string at most as long as the content it fills. */
const model = { type: 'object', additionalProperties: { $ref: '#/$defs/modelValue' } } as const;
/** Returned with every event of the message: small by design (SendGrid caps its own at 10,000 bytes). */
const customArgs = {
  type: 'object', maxProperties: 50, propertyNames: { maxLength: 100 }, additionalProperties: { type: 'string', maxLength: 1000 },
} as const;
const tagList = { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 100 } } as const;
/** content.html and content.text: 300 KB each. Characters here; validate-send counts the UTF-8 bytes. */
export const MAX_CONTENT_BYTES = 300 * 1024;
const KB300 = MAX_CONTENT_BYTES;
/** Herald's ids are at most 19 characters (`/<9 digits>/<9 digits>`); room for other spellings, not for abuse. */
export const MAX_TEMPLATE_ID_LENGTH = 100;
/** Each utm parameter: the spec gives none; 200 keeps a link readable and far below URL limits. */
export const MAX_UTM_LENGTH = 200;
const utm = { type: 'string', maxLength: MAX_UTM_LENGTH } as const;
const toggle = { type: 'object', additionalProperties: false, properties: { enable: { type: 'boolean' } } } as const;

/** launch_date: a date and time with seconds optional, fractions allowed, and a zone (Z, ±hh:mm or ±hhmm). */
export const LAUNCH_DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})$';

export const sendSchema = {
  $defs: {
    modelValue: {
      type: ['string', 'number', 'boolean', 'null', 'array', 'object'],
      maxLength: KB300,
      items: { $ref: '#/$defs/modelValue' },
      additionalProperties: { $ref: '#/$defs/modelValue' },
    },
  },
  type: 'object',
  required: ['recipients'],
  // Without template_id these three are required; with one, validate-send merged the template first
  // and requires them of the result. (`true` names them in `then` for ajv's strictRequired.)
  if: { properties: { template_id: false } },
  then: { properties: { from: true, subject: true, content: true }, required: ['from', 'subject', 'content'] },
  additionalProperties: false,
  properties: {
    from: address(100),
    reply_to: address(100),
    subject: { type: 'string', minLength: 1, maxLength: 200 },
    // A path id of the account's templates API (`/12`, `/3/12`; `3/12` and `12` too), not the original's `etpl_…`.
    template_id: {
      type: 'string', maxLength: MAX_TEMPLATE_ID_LENGTH,
      description: 'The id of an HTML or MJML template of the account, as the templates API gives it (`/12`, `/3/12`). Its HTML, subject, '
        + 'from and reply_to fill what the request does not give (content.html and content.text each by itself).',
    },
    content: {
      type: 'object',
      additionalProperties: false,
      properties: {
        html: { type: 'string', maxLength: KB300, description: 'At most 300 KB (307,200 bytes of UTF-8).' },
        text: { type: 'string', maxLength: KB300, description: 'At most 300 KB (307,200 bytes of UTF-8).' },
      },
    },
    attachments: {
      type: 'array',
      maxItems: MAX_ATTACHMENTS,
      items: {
        type: 'object',
        required: ['file_name', 'mime_type', 'data'],
        additionalProperties: false,
        properties: {
          // The name goes into MIME headers: no CR/LF (nor any control character), no path.
          file_name: { type: 'string', minLength: 1, maxLength: MAX_FILE_NAME_LENGTH, pattern: FILE_NAME_PATTERN },
          mime_type: { type: 'string', minLength: 1, maxLength: MAX_MIME_TYPE_LENGTH, pattern: MIME_TYPE_PATTERN },
          // Base64, bounded by the request's 10 MB; checked strictly (and by content) in validate-send.
          data: { type: 'string', minLength: 1 },
        },
      },
    },
    headers: {
      type: 'object',
      maxProperties: 10,
      propertyNames: { maxLength: 900 }, // the spec's limit; allowed names are checked in validate-send
      additionalProperties: { type: 'string', maxLength: 50, pattern: '^[^\\r\\n]*$' },
    },
    recipients: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        required: ['to'],
        additionalProperties: false,
        properties: {
          to: address(100),
          cc: addressList,
          bcc: addressList,
          substitutions: model,
          custom_args: customArgs,
          tags: tagList, // the spec bounds batch tags; a recipient's get the same bounds
        },
      },
    },
    substitutions: model,
    tags: tagList,
    batch_code: { type: 'string', maxLength: 30 },
    // ISO 8601 with Z or an offset (+hh:mm or +hhmm); checked to be a real instant in validate-send.
    launch_date: { type: 'string', maxLength: 40, pattern: LAUNCH_DATE_PATTERN },
    // Open and click tracking default to on; utm parameters are added to every link (spec rules 5 and 6).
    tracking: {
      type: 'object',
      additionalProperties: false,
      properties: {
        open: toggle,
        click: toggle,
        analytics: {
          type: 'object',
          additionalProperties: false,
          properties: { utm_source: utm, utm_medium: utm, utm_campaign: utm, utm_content: utm, utm_term: utm },
        },
      },
    },
  },
} as const;
