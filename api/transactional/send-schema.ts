// JSON schema of POST /v1/mail/send, with the spec's limits. Keys the schema does not name are
// dropped (existing SDKs send a few undocumented ones), so what is stored is only what Herald
// validated; free-form parts (substitutions) are bounded here and by the door's structure limits.
// null means absent (stripped before this). Attachments' content is checked beyond the schema,
// by core/transactional/attachments.ts.
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
const KB300 = 300 * 1024;

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
  required: ['from', 'subject', 'content', 'recipients'],
  additionalProperties: false,
  properties: {
    from: address(100),
    reply_to: address(100),
    subject: { type: 'string', minLength: 1, maxLength: 200 },
    content: {
      type: 'object',
      additionalProperties: false,
      properties: {
        html: { type: 'string', maxLength: KB300 },
        text: { type: 'string', maxLength: KB300 },
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
  },
} as const;

/** Fields of the spec that this version cannot honour yet: refused rather than silently ignored. */
export const NOT_YET_SUPPORTED = ['template_id'] as const;
