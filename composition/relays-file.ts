// The relays file (HERALD_RELAYS_FILE, JSON or YAML): the relays mail goes through, in the order a
// message tries them, with the conditions that route a message to each, and where the providers'
// bounce and complaint reports come from (their webhooks' secrets, a bounce mailbox). Read and
// checked once at start: every problem is named with its place in the file, and nothing starts
// with a file that has one. SMTP_RELAY_URL alone is a set of one relay that takes anything.
import crypto from 'node:crypto';
import fs from 'node:fs';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import YAML from 'yaml';
import { STREAMS, type RelayDefinition } from '../adapters/relay/routes';
import type { FeedbackSettings } from '../core/bounces/feedback-settings';
import { hostOf } from '../core/shared/url-host';

export interface RelaySettings {
  relays: RelayDefinition[];
  feedback: FeedbackSettings;
}

const NAME = '^[a-z0-9][a-z0-9_-]{0,39}$';
const DOMAIN = '^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9-]{2,63}$';
const list = (items: object) => ({ type: 'array', minItems: 1, uniqueItems: true, items });

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['relays'],
  properties: {
    relays: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'url'],
        properties: {
          name: { type: 'string', pattern: NAME },
          url: { type: 'string', minLength: 1 },
          streams: list({ enum: STREAMS }),
          accounts: list({ type: 'string', minLength: 1, maxLength: 200 }),
          senderDomains: list({ type: 'string', pattern: DOMAIN }),
          recipientDomains: list({ type: 'string', pattern: DOMAIN }),
          ratePerSecond: { type: 'number', exclusiveMinimum: 0, maximum: 100_000 },
          maxConnections: { type: 'integer', minimum: 1, maximum: 100 },
        },
      },
    },
    feedback: {
      type: 'object',
      additionalProperties: false,
      properties: {
        mailgun: { type: 'object', additionalProperties: false, required: ['signingKey'], properties: { signingKey: { type: 'string', minLength: 8 } } },
        sendgrid: { type: 'object', additionalProperties: false, required: ['publicKey'], properties: { publicKey: { type: 'string', minLength: 8 } } },
        postmark: {
          type: 'object', additionalProperties: false, required: ['username', 'password'],
          properties: { username: { type: 'string', minLength: 1 }, password: { type: 'string', minLength: 8 } },
        },
        ses: {
          type: 'object', additionalProperties: false, required: ['topicArns'],
          properties: { topicArns: list({ type: 'string', pattern: '^arn:aws[a-z-]*:sns:[a-z0-9-]+:\\d{12}:[A-Za-z0-9_-]{1,256}$' }) },
        },
        mailbox: {
          type: 'object', additionalProperties: false, required: ['url'],
          properties: {
            url: { type: 'string', minLength: 1 },
            folder: { type: 'string', minLength: 1, maxLength: 200 },
            afterReading: { enum: ['delete', 'flag'] },
            everySeconds: { type: 'integer', minimum: 10, maximum: 3600 },
          },
        },
      },
    },
  },
} as const;

// Compiled when a relays file is first read: most processes never read one.
let compiled: ValidateFunction<RelaySettings> | undefined;
const validator = () => (compiled ??= new Ajv({ allErrors: true, strict: true }).compile<RelaySettings>(schema));

/** Where a problem is in the file: relays[1].url. */
function placeOf(error: ErrorObject): string {
  const parts = error.instancePath.split('/').slice(1).map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`));
  const place = parts.join('').replace(/^\./, '');
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return place ? `${place}.${extra}` : extra;
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return place ? `${place}.${missing}` : missing;
  }
  return place || '(the file)';
}

function describe(error: ErrorObject): string {
  switch (error.keyword) {
    case 'additionalProperties': return 'is not a setting of the relays file';
    case 'required': return 'is required';
    case 'enum': return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'pattern':
      if (error.instancePath.endsWith('/name')) return 'must be 1-40 lowercase letters, digits, - or _';
      if (error.instancePath.includes('Domains')) return 'must be a domain name in lowercase, e.g. example.com';
      return 'must be an SNS topic ARN, e.g. arn:aws:sns:us-east-1:123456789012:bounces';
    default: return error.message ?? 'is not valid';
  }
}

/** Problems a schema cannot see: URLs, repeated names, a key that is not one. */
function checkMeaning(settings: RelaySettings): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  settings.relays.forEach((relay, index) => {
    if (seen.has(relay.name)) problems.push(`relays[${index}].name "${relay.name}" is used by an earlier relay`);
    seen.add(relay.name);
    const problem = urlProblem(relay.url, ['smtp:', 'smtps:'], 'smtp://host:587 or smtps://user:pass@host:465');
    if (problem) problems.push(`relays[${index}].url (relay "${relay.name}") ${problem}`);
  });
  const { sendgrid, mailbox } = settings.feedback;
  if (sendgrid) {
    try {
      const key = crypto.createPublicKey({ key: Buffer.from(sendgrid.publicKey, 'base64'), format: 'der', type: 'spki' });
      if (key.asymmetricKeyType !== 'ec') problems.push('feedback.sendgrid.publicKey must be an elliptic-curve (ECDSA) key, as SendGrid shows it');
    } catch {
      problems.push('feedback.sendgrid.publicKey must be the base64 of a DER public key, as SendGrid shows it');
    }
  }
  if (mailbox) {
    const problem = urlProblem(mailbox.url, ['imaps:'], 'imaps://user:password@imap.example.com:993 (TLS only)');
    if (problem) problems.push(`feedback.mailbox.url ${problem}`);
    else if (!new URL(mailbox.url).username) problems.push('feedback.mailbox.url must name the mailbox\'s user and password (imaps://user:password@host)');
  }
  return problems;
}

function urlProblem(raw: string, protocols: string[], example: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `is not a URL: expected ${example}`;
  }
  if (!protocols.includes(url.protocol)) return `must start with ${protocols.map((p) => `${p}//`).join(' or ')}: expected ${example}`;
  if (!url.hostname) return `names no host: expected ${example}`;
  return undefined;
}

/** Checks a parsed relays file; the settings, or every problem found. */
export function checkRelaySettings(value: unknown): { settings: RelaySettings } | { problems: string[] } {
  const validate = validator();
  if (!validate(value)) {
    const problems = (validate.errors ?? []).map((error) => `${placeOf(error)} ${describe(error)}`);
    return { problems: [...new Set(problems)] };
  }
  const settings = { relays: value.relays, feedback: value.feedback ?? {} };
  const problems = checkMeaning(settings);
  return problems.length > 0 ? { problems } : { settings };
}

/** Reads and checks the file; every problem is prefixed with its path, for the start-up error. */
export function readRelaysFile(file: string): { settings: RelaySettings } | { problems: string[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return { problems: [`HERALD_RELAYS_FILE: ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`] };
  }
  let parsed: unknown;
  try {
    parsed = YAML.parse(text); // JSON is YAML: one parser reads both
  } catch (error) {
    return { problems: [`HERALD_RELAYS_FILE: ${file} is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`] };
  }
  const checked = checkRelaySettings(parsed);
  return 'problems' in checked ? { problems: checked.problems.map((problem) => `HERALD_RELAYS_FILE ${file}: ${problem}`) } : checked;
}

/** SMTP_RELAY_URL as a set of one relay that takes anything, with no feedback source. */
export function singleRelay(url: string): RelaySettings {
  return { relays: [{ name: 'default', url }], feedback: {} };
}

/** The settings as logs, metrics and the console may show them: names and conditions, no URL credentials nor secrets. */
export function describeRelaySettings(settings: RelaySettings): unknown {
  return {
    relays: settings.relays.map(({ url, ...rest }) => ({ ...rest, host: hostOf(url) })),
    feedback: Object.keys(settings.feedback),
  };
}
