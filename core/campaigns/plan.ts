// A campaign's content made into messages with the send engine's planning (core/sending/plan.ts),
// as a send request is: the content is a send body (./layout.ts: header and footer, tracking
// options), its templates compiled once by the transactional renderer (its cache is by source, so
// every plan of a campaign, every page of its launch, shares one compilation) and the MIME
// composed once per plan (bodySkeleton); each recipient's copy is rendered from its snapshot row
// when the sender asks for its bytes, with the message's own signed links. Its click links that
// are the same in every message are its request's link table (core/content/tracking/token.ts),
// saved by the plan before the plan is handed out: no message refers to a table not yet stored.
import type { CampaignDoc, CampaignRecipient, FieldDoc } from '../../adapters/store/store';
import { compiledTemplate } from '../content/dialect/dialect';
import { contentRenderer, type LinkContext, type MessageIdentity, type Personalised } from '../content/personalise';
import type { LinkTableWriter } from '../content/tracking/link-tables';
import { linkTable } from '../content/tracking/rewrite';
import { bodySkeleton, composeCopy, listIdOf, messageIdHost, messageIdOf, plannedMessage, type PlanContext, type PlannedMessage } from '../sending/plan';
import type { Recipient, SendRequestBody } from '../transactional/request';
import { campaignModel, campaignSendBody, hasForwardLink, sendableContent } from './layout';
import { contactModel, displayName, fieldNamesOf } from './contact-model';
import { CAMPAIGN_MAIL_TYPE, campaignBatchId, campaignMailIds, campaignRequestId } from './model';

export { hasUnsubscribeLink } from './layout';

export interface CampaignPlan {
  /** The envelope sender's address (DKIM signs for its domain). */
  sender: string;
  message(recipient: CampaignRecipient): PlannedMessage;
}

/**
 * Each recipient of the campaign as a send body's recipients[] element: addressed to the row's
 * email and name, its model `contact` (./contact-model.ts) and `campaign` (the layout's texts).
 */
export function campaignRecipients(campaign: CampaignDoc, fields: readonly FieldDoc[], body: SendRequestBody): (row: CampaignRecipient) => Recipient {
  const names = fieldNamesOf(fields);
  const content = sendableContent(campaign);
  // The forward link's subject is the recipient's own (it may be personalised): rendered only when shown.
  const subject = hasForwardLink(campaign.options) ? compiledTemplate(body.subject, { escape: 'none', singleLine: true }) : undefined;
  return (row) => {
    const contact = contactModel(row, names);
    const name = displayName(row);
    return {
      to: name ? { email: row.email, name } : { email: row.email },
      substitutions: { contact, campaign: campaignModel(content, subject ? subject.render({ contact }) : '') },
    };
  };
}

/** The identity a copy's tracking tokens sign: the campaign's request id of the round, the recipient's seq as the index. */
function identities(campaign: CampaignDoc, round: number): (row: CampaignRecipient) => MessageIdentity {
  const { account, id } = campaign;
  const requestId = campaignRequestId(id, round);
  const batchId = campaignBatchId(account, id);
  const mailIdOf = campaignMailIds(account, id, round);
  return (row) => ({ account, requestId, index: row.seq, mailId: mailIdOf(row.seq), batchId, email: row.email, seqMailId: true });
}

/**
 * The campaign's copies, compiled once: the function renders one recipient's. `pixel` false leaves
 * the open pixel out (the online version: a view is not an open).
 */
export function campaignCopies(
  campaign: CampaignDoc, fields: readonly FieldDoc[], links: LinkContext, round = 0, pixel = true,
): { body: SendRequestBody; copy(row: CampaignRecipient): { recipient: Recipient; identity: MessageIdentity; copy: Personalised } } {
  const body = campaignSendBody(campaign);
  if (!pixel) body.tracking = { ...body.tracking, open: { enable: false } };
  const render = contentRenderer(body, links);
  const recipientOf = campaignRecipients(campaign, fields, body);
  const identityOf = identities(campaign, round);
  return {
    body,
    copy(row) {
      const recipient = recipientOf(row);
      const identity = identityOf(row);
      return { recipient, identity, copy: render(recipient, identity) };
    },
  };
}

/** What a campaign's plan takes: the send engine's context, and where the link table goes (linkTablesOf the store). */
export interface CampaignPlanContext extends PlanContext { linkTables: LinkTableWriter }

/**
 * The campaign's content planned for round `round` (0: the launch; n: resend round n), its link
 * table saved. `fields`: the account's custom fields.
 */
export async function planCampaign(campaign: CampaignDoc, fields: FieldDoc[], context: CampaignPlanContext, round = 0): Promise<CampaignPlan> {
  const { mtaHost, links, linkTables } = context;
  const copies = campaignCopies(campaign, fields, { ...links, linkTable: true }, round);
  const { html } = copies.body.content;
  if (html !== undefined) await linkTables.save(campaign.account, campaignRequestId(campaign.id, round), linkTable(html, copies.body.tracking, links.publicUrl));
  const skeleton = await bodySkeleton(copies.body);
  const identityOf = identities(campaign, round);
  const idHost = messageIdHost(mtaHost, copies.body.from.email);
  const listId = listIdOf(campaign.account, idHost);
  return {
    sender: copies.body.from.email,
    message(row) {
      const names = identityOf(row);
      const messageId = messageIdOf(names.mailId, idHost);
      const raw = () => {
        const { recipient, copy } = copies.copy(row);
        return composeCopy(skeleton, recipient, copy, { messageId, listId });
      };
      return plannedMessage(names, mtaHost, raw, { tags: campaign.tags, mail_type: CAMPAIGN_MAIL_TYPE, messageId });
    },
  };
}
