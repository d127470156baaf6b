// What the campaign routes accept, as JSON or as the original's form bodies (PHP-style arrays:
// `tags[]=a`, `include[lists][]=3`, `include[campaigns][0][id]=5`, `options[TRACK_LINKS]=0`), and
// its conversion into the domain's input. Form clients cannot send an empty array, so an empty
// member (`tags[]=`) is dropped: `tags[]=` alone clears the tags.
import type { CampaignInput } from '../../core/campaigns/campaigns';
import type { ContentInput } from '../../core/campaigns/content-record';
import { MAX_OPTION_NAME_LENGTH } from '../../core/campaigns/options';
import { MAX_TEST_ADDRESSES } from '../../core/campaigns/send-test';
import { isEmailAddress } from '../../core/shared/email-address';
import { errors, fieldError, type FieldError } from '../../core/shared/errors';
import { MAX_SUBJECT_LENGTH } from '../../core/content/templates';
import { asBody, validator } from '../validation';
import { parseTimestamp } from './activity-query';
import { description, name } from './schemas';

export const tags = { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 50 } } as const;
const ids = (what: string) => ({ type: 'array', maxItems: 1000, items: { type: ['integer', 'string'] }, description: `Ids of ${what} of the account.` }) as const;
const audience = {
  type: 'object', additionalProperties: false,
  properties: {
    lists: ids('lists'), interests: ids('interests'),
    campaigns: {
      type: 'array', maxItems: 100, items: { type: ['integer', 'string', 'object'] },
      description: 'Other campaigns of the account: a bare id (its SENT recipients) or `{id, action}` with action SENT, OPENED, CLICKED, NO_OPEN or NO_CLICK.',
    },
  },
} as const;
const date = (text: string) => ({ type: ['string', 'null'], maxLength: 40, description: text }) as const;
const options = {
  type: 'object', maxProperties: 20, additionalProperties: { type: ['string', 'integer', 'boolean'], maxLength: MAX_OPTION_NAME_LENGTH },
  description: 'Option keys, neutral (TRACK_LINKS, ANALYTICS, ANALYTICS_CAMPAIGN_NAME, VIEW_ONLINE, SHARE_NETWORK_1..3, SHARE_FORWARD) or the original\'s '
    + '(GOOGLE_ANALYTICS, GA_CAMPAIGN_NAME, SHARE_FACEBOOK, SHARE_TWITTER, SHARE_LINKEDIN), and USE_HEADER, USE_FOOTER: `1` or `0` (also 1/0, true/false); '
    + 'the analytics name is a text. A PUT changes only the keys given.',
} as const;
const campaignFields = {
  name, description, tags,
  type: { type: 'string', enum: ['SIMPLE'], description: 'SIMPLE, the only type (any letter case).' },
  launchMode: { type: 'string', enum: ['NOW', 'SCHEDULED'], description: 'NOW (the default) or SCHEDULED (any letter case); NOW clears the launch date.' },
  launch: date('The original\'s name of the launch date: ISO 8601 with `Z` or an offset (`+0200`). Needs launchMode SCHEDULED; null clears it.'),
  launchDate: date('The same as `launch` (the record\'s name).'),
  options, include: audience, exclude: audience,
} as const;

export const campaignCreateSchema = { type: 'object', additionalProperties: false, required: ['name'], properties: campaignFields } as const;
export const campaignUpdateSchema = { type: 'object', additionalProperties: false, properties: campaignFields } as const;

interface RawCampaign {
  name?: string; description?: string; tags?: string[]; type?: string; launchMode?: 'NOW' | 'SCHEDULED';
  launch?: string | null; launchDate?: string | null; options?: Record<string, unknown>;
  include?: CampaignInput['include']; exclude?: CampaignInput['exclude'];
}
const validateCreate = validator<RawCampaign & { name: string }>(campaignCreateSchema);
const validateUpdate = validator<RawCampaign>(campaignUpdateSchema);

/** Empty members of arrays (a form's `tags[]=`) dropped, at any depth; `null` left as it is. */
function withoutEmptyMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== '').map(withoutEmptyMembers);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutEmptyMembers(v)]));
  return value;
}

/** The body as an object, its enum-like words upper-cased (the original's clients vary their case). */
export function prepare(body: unknown, upper: string[]): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest('The body must be an object');
  const out = asBody(withoutEmptyMembers(body) as Record<string, unknown>, body);
  for (const key of upper) if (typeof out[key] === 'string') out[key] = (out[key] as string).trim().toUpperCase();
  return out;
}

/** An ISO 8601 instant with a zone, or a field error; '' and null mean none. */
export function readInstant(value: unknown, field: string, problems: Record<string, FieldError>): Date | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  const instant = typeof value === 'string' ? parseTimestamp(value.trim()) : undefined;
  if (!instant) problems[field] = fieldError('invalid_value', 'Must be an ISO 8601 date and time with Z or an offset (2026-03-01T10:00:00Z, +0200)');
  return instant ?? undefined;
}

function toCampaignInput(raw: RawCampaign): CampaignInput {
  const problems: Record<string, FieldError> = {};
  const launch = readInstant(raw.launch, 'launch', problems);
  const launchDate = readInstant(raw.launchDate, 'launchDate', problems);
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  const { launch: _l, launchDate: _d, type: _t, ...rest } = raw;
  return { ...rest, ...(launch !== undefined || launchDate !== undefined ? { launchDate: launch !== undefined ? launch : launchDate } : {}) };
}

export const readCampaignCreate = (body: unknown) => toCampaignInput(validateCreate(prepare(body, ['type', 'launchMode']))) as CampaignInput & { name: string };
export const readCampaignUpdate = (body: unknown) => toCampaignInput(validateUpdate(prepare(body, ['type', 'launchMode'])));

const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max, pattern: '\\S' }) as const;
const email = { type: 'string', format: 'email', maxLength: 254 } as const;
const contentFields = {
  type: { type: 'string', enum: ['HTML'], description: 'HTML (the default; any letter case). The original\'s EDDIE (its editor) is not supported.' },
  subject: text(MAX_SUBJECT_LENGTH),
  from: { ...email, description: 'The sender\'s address.' },
  fromName: text(100),
  replyTo: { type: 'string', maxLength: 254, description: 'An address, or empty for none.' },
  replyToName: { type: 'string', maxLength: 100 },
  replyToAddress: { type: 'string', maxLength: 100, description: 'The original documentation\'s name of replyToName.' },
  unsubscribeText: { type: 'string', maxLength: 500, description: 'The footer\'s unsubscribe line; empty or absent: the default text.' },
} as const;
export const contentCreateSchema = { type: 'object', additionalProperties: false, required: ['subject', 'from', 'fromName'], properties: contentFields } as const;
export const contentUpdateSchema = { type: 'object', additionalProperties: false, properties: contentFields } as const;
type RawContent = ContentInput & { type?: string; replyToAddress?: string };
const validateContentCreate = validator<RawContent & Required<Pick<ContentInput, 'subject' | 'from' | 'fromName'>>>(contentCreateSchema);
const validateContentUpdate = validator<RawContent>(contentUpdateSchema);

function toContentInput<T extends RawContent>(raw: T): T {
  const { type: _type, replyToAddress, ...input } = raw;
  if (input.replyTo !== undefined && input.replyTo.trim() !== '' && !isEmailAddress(input.replyTo.trim())) {
    throw errors.validation({ replyTo: fieldError('invalid_value', 'Invalid email address') });
  }
  return { ...input, ...(input.replyToName === undefined && replyToAddress !== undefined ? { replyToName: replyToAddress } : {}) } as T;
}

export const readContentCreate = (body: unknown) => toContentInput(validateContentCreate(prepare(body, ['type'])));
export const readContentUpdate = (body: unknown) => toContentInput(validateContentUpdate(prepare(body, ['type'])));

export const launchSchema = {
  type: 'object', additionalProperties: false,
  properties: {
    launchDate: date('When to send: ISO 8601 with `Z` or an offset (`+0200`). Absent: the campaign\'s own launch date when its launchMode is SCHEDULED, else as soon as possible.'),
  },
} as const;
const validateLaunch = validator<{ launchDate?: string | null }>(launchSchema);

/** The launch date a launch request gives, if any. */
export function readLaunchDate(body: unknown): Date | null | undefined {
  const raw = validateLaunch(prepare(body, []));
  const problems: Record<string, FieldError> = {};
  const instant = readInstant(raw.launchDate, 'launchDate', problems);
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  return instant;
}

export const duplicateSchema = { type: 'object', additionalProperties: false, required: ['name'], properties: { name } } as const;
const validateDuplicate = validator<{ name: string }>(duplicateSchema);
export const readDuplicate = (body: unknown) => validateDuplicate(prepare(body, []));

export const sendTestSchema = {
  type: 'object', additionalProperties: false, required: ['emails'],
  properties: { emails: { type: 'array', minItems: 1, maxItems: MAX_TEST_ADDRESSES, items: email, description: `1 to ${MAX_TEST_ADDRESSES} addresses.` } },
} as const;
const validateSendTest = validator<{ emails: string[] }>(sendTestSchema);

/** `emails` as a JSON array, form `emails[]=…`, or one address alone. */
export function readSendTest(body: unknown): string[] {
  const prepared = prepare(body, []);
  if (typeof prepared.emails === 'string') prepared.emails = [prepared.emails];
  if (Array.isArray(prepared.emails)) prepared.emails = prepared.emails.map((e) => (typeof e === 'string' ? e.trim() : e));
  return [...new Set(validateSendTest(prepared).emails.map((e) => e.toLowerCase()))];
}
