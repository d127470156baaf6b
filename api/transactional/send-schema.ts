// JSON schema of POST /v1/mail/send, with the spec's limits. Unknown keys are allowed
// (existing SDKs send a few undocumented ones); null means absent (stripped before this).

const address = (nameMax: number) => ({
  type: 'object',
  required: ['email'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 320 },
    name: { type: 'string', maxLength: nameMax },
  },
}) as const;

const addressList = { type: 'array', maxItems: 10, items: address(100) } as const;
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
const KB300 = 300 * 1024;

export const sendSchema = {
  type: 'object',
  required: ['from', 'subject', 'content', 'recipients'],
  properties: {
    from: address(100),
    reply_to: address(100),
    subject: { type: 'string', minLength: 1, maxLength: 200 },
    content: {
      type: 'object',
      properties: {
        html: { type: 'string', maxLength: KB300 },
        text: { type: 'string', maxLength: KB300 },
      },
    },
    headers: {
      type: 'object',
      maxProperties: 10,
      propertyNames: { pattern: '^[!-9;-~]{1,900}$' }, // RFC 5322 field name, spec's 900 limit
      additionalProperties: { type: 'string', maxLength: 50, pattern: '^[^\\r\\n]*$' },
    },
    recipients: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        required: ['to'],
        properties: {
          to: address(100),
          cc: addressList,
          bcc: addressList,
          substitutions: { type: 'object' },
          custom_args: stringMap,
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    substitutions: { type: 'object' },
    tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 100 } },
    batch_code: { type: 'string', maxLength: 30 },
  },
} as const;

/** Fields of the spec that this version cannot honour yet: refused rather than silently ignored. */
export const NOT_YET_SUPPORTED = ['template_id', 'attachments', 'launch_date'] as const;
