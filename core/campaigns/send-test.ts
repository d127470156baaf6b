// POST /campaigns/{id}/contents/{cid}/sendtest: the content, as a recipient would get it, to at
// most 10 addresses, accepted like a transactional send (durable: answered once Temporal has it).
// Each test copy is the campaign's message (layout, options, tracking) for a contact whose only
// field is its address: `${contact.first_name!"friend"}` shows its fallback, as it would for a
// contact without a first name. Subject prefixed "[Test] ", tagged `campaign-test`, in a batch of
// its own (`<account>_transactional_campaign-<id>-test`): never counted in the campaign's metrics.
import { isAllowedSender, readAccountSettings } from '../accounts/settings';
import { isEmailAddress } from '../shared/email-address';
import { errors, fieldError } from '../shared/errors';
import type { CampaignDoc, CampaignRecipient } from '../../adapters/store/store';
import { acceptSendRequest, type AcceptDeps, type AcceptedIds } from '../transactional/accept';
import { senderNotAllowed } from '../transactional/submit';
import { campaignSendBody } from './layout';
import { campaignRecipients } from './plan';

export const MAX_TEST_ADDRESSES = 10;
export const TEST_TAG = 'campaign-test';

/** The stand-in contact of a test copy: the address, every other field empty. */
function sampleRow(email: string): CampaignRecipient {
  return { seq: 0, contactId: 0, email, firstName: '', lastName: '', gender: '', language: '', customFields: {} };
}

export async function sendTestMessages(deps: AcceptDeps, campaign: CampaignDoc, emails: string[]): Promise<AcceptedIds> {
  const { account } = campaign;
  if (!Array.isArray(emails) || emails.length === 0 || emails.length > MAX_TEST_ADDRESSES) {
    throw errors.validation({ emails: fieldError('invalid_value', `Give 1 to ${MAX_TEST_ADDRESSES} addresses`) });
  }
  if (!emails.every((email) => typeof email === 'string' && isEmailAddress(email))) {
    throw errors.validation({ emails: fieldError('invalid_value', 'Each item must be an email address') });
  }
  if (typeof campaign.content?.html !== 'string') throw errors.badRequest('The content has no HTML body yet: set it first (PUT …/contents/{id}.html)');
  const settings = await readAccountSettings(deps.store, account);
  if (settings && !isAllowedSender(settings, campaign.content.from)) throw senderNotAllowed(settings);
  const fields = await deps.store.fields.find({ account }).toArray();
  const body = campaignSendBody(campaign);
  const recipientOf = campaignRecipients(campaign, fields, body);
  return acceptSendRequest(deps, {
    account,
    source: 'http',
    body: {
      ...body,
      subject: `[Test] ${body.subject}`,
      recipients: [...new Set(emails)].map((email) => recipientOf(sampleRow(email))),
      tags: [TEST_TAG],
      batch_code: `campaign-${campaign.id}-test`,
    },
  }, settings ? { monthlyLimit: settings.monthlyLimit } : undefined);
}
