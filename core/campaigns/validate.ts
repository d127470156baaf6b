// Whether a campaign can be launched, and why not: GET …/validate shows it, POST …/launch refuses
// on it. The original's shape, `{valid, tests: {launchDate, recipients, contents, account}}` (each
// test `{valid, message, errors: [{code, message, moreInfo}], warnings}`), with the issue's flat
// list of checks beside it in `checks` (sender, subject, body, unsubscribe, recipients,
// senderDomain, launchDate), each `{valid, message}`.
import { readAccountSettings, isAllowedSender } from '../accounts/settings';
import { isEmailAddress } from '../shared/email-address';
import type { CampaignDoc, Store } from '../../adapters/store/store';
import { countAudience } from './audience';
import { hasUnsubscribeLink } from './plan';

export interface ValidationIssue { code: string; message: string; moreInfo: string | null }
export interface ValidationTest { valid: boolean; message: string | null; errors: ValidationIssue[]; warnings: ValidationIssue[] }
export interface CheckResult { valid: boolean; message: string; count?: number }

export const TEST_NAMES = ['launchDate', 'recipients', 'contents', 'account'] as const;
export type TestName = typeof TEST_NAMES[number];
export const CHECK_NAMES = ['sender', 'subject', 'body', 'unsubscribe', 'recipients', 'senderDomain', 'launchDate'] as const;
export type CheckName = typeof CHECK_NAMES[number];

export interface CampaignValidation {
  valid: boolean;
  tests: Record<TestName, ValidationTest>;
  checks: Record<CheckName, CheckResult>;
}

/** A launch date this far in the past still means "now": the client's clock, and the request's time on the way. */
export const LAUNCH_DATE_TOLERANCE_MS = 60_000;

/** What each check is, under which test, and the code of its failure. */
const CHECKS: Record<CheckName, { test: TestName; code: string }> = {
  sender: { test: 'contents', code: 'SENDER_MISSING' },
  subject: { test: 'contents', code: 'SUBJECT_MISSING' },
  body: { test: 'contents', code: 'BODY_MISSING' },
  unsubscribe: { test: 'contents', code: 'UNSUBSCRIBE_LINK_MISSING' },
  recipients: { test: 'recipients', code: 'NO_RECIPIENTS' },
  senderDomain: { test: 'account', code: 'SENDER_DOMAIN_NOT_ALLOWED' },
  launchDate: { test: 'launchDate', code: 'LAUNCH_DATE_IN_PAST' },
};

export interface ValidateOptions {
  /** The launch date to check: the one a launch gives, or the campaign's own. */
  launchDate: Date | null;
  /** Where to read about (or fix) each test's problems; null: nowhere to point. */
  moreInfo: Record<TestName, string | null>;
  now?: Date;
}

/** Runs every check (the audience count and the account's settings read in parallel). */
export async function validateCampaign(store: Store, campaign: CampaignDoc, options: ValidateOptions): Promise<CampaignValidation> {
  const { content } = campaign;
  const now = options.now ?? new Date();
  const [count, settings] = await Promise.all([countAudience(store, campaign), readAccountSettings(store, campaign.account)]);
  const noContent = 'The campaign has no content: add one with POST …/contents';
  const ok = (message: string): CheckResult => ({ valid: true, message });
  const fail = (message: string): CheckResult => ({ valid: false, message });
  const checks: Record<CheckName, CheckResult> = {
    sender: !content ? fail(noContent)
      : !isEmailAddress(content.from) || content.fromName.trim() === '' ? fail('The content needs a sender address (from) and name (fromName)')
        : ok(`From ${content.fromName} <${content.from}>`),
    subject: !content ? fail(noContent) : content.subject.trim() === '' ? fail('The content has no subject') : ok('The content has a subject'),
    body: !content ? fail(noContent)
      : content.html === null || content.html.trim() === '' ? fail(`The content has no HTML body: set it with PUT …/contents/${content.id}.html`)
        : ok('The content has an HTML body'),
    unsubscribe: !content ? fail(noContent)
      : hasUnsubscribeLink(content, campaign.options) ? ok('The message carries an unsubscribe link')
        : fail('The message carries no unsubscribe link: keep the footer (USE_FOOTER) or put ${urls.unsubscribe} in the body'),
    recipients: { ...(count > 0 ? ok(`${count} recipient(s)`) : fail('The campaign has no recipients: include lists, interests or campaigns with subscribed contacts')), count },
    senderDomain: !content ? fail(noContent)
      : settings && !isAllowedSender(settings, content.from)
        ? fail(`The sender's domain is not one the account may send from (${settings.senderDomains.join(', ')})`)
        : ok('The sender\'s domain is allowed'),
    launchDate: options.launchDate && options.launchDate.getTime() < now.getTime() - LAUNCH_DATE_TOLERANCE_MS
      ? fail(`The launch date ${options.launchDate.toISOString()} is in the past`)
      : ok(options.launchDate ? `Launch at ${options.launchDate.toISOString()}` : 'Launch as soon as possible'),
  };
  const tests = Object.fromEntries(TEST_NAMES.map((name) => {
    const errors = CHECK_NAMES.filter((check) => CHECKS[check].test === name && !checks[check].valid)
      .map((check) => ({ code: !content && CHECKS[check].test === 'contents' ? 'CONTENT_MISSING' : CHECKS[check].code, message: checks[check].message, moreInfo: options.moreInfo[name] }));
    const unique = errors.filter((e, i) => errors.findIndex((other) => other.message === e.message) === i);
    const warnings = name === 'launchDate' ? launchWarnings(campaign, options.launchDate) : [];
    return [name, { valid: unique.length === 0, message: unique.length === 0 ? null : unique.map((e) => e.message).join('; '), errors: unique, warnings }];
  })) as Record<TestName, ValidationTest>;
  return { valid: TEST_NAMES.every((name) => tests[name].valid), tests, checks };
}

/** A SCHEDULED campaign without a date launches at once: worth a word, not a refusal. */
function launchWarnings(campaign: CampaignDoc, launchDate: Date | null): ValidationIssue[] {
  return campaign.launchMode === 'SCHEDULED' && !launchDate
    ? [{ code: 'LAUNCH_DATE_MISSING', message: 'launchMode is SCHEDULED but no launch date is set: a launch without one sends at once', moreInfo: null }]
    : [];
}

/** The failed checks in a sentence (the launch's refusal message). */
export function describeFailures(validation: CampaignValidation): string {
  const messages = [...new Set(CHECK_NAMES.filter((check) => !validation.checks[check].valid).map((check) => validation.checks[check].message))];
  return `The campaign cannot be launched: ${messages.join('; ')}`;
}
