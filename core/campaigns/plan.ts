// OWNED BY HELPER C (content rendering). Stub signatures fixed by the lead; replace the bodies.
// A campaign's content made into messages, the way core/transactional/plan.ts does it for a
// send request: templates compiled and the MIME composed once per campaign, each recipient's
// copy rendered from its snapshot row.
import type { CampaignContentDoc, CampaignDoc, CampaignRecipientDoc, FieldDoc } from '../store';
import type { PlanContext, PlannedMessage } from '../transactional/plan';

export interface CampaignPlan {
  /** The envelope sender's address (DKIM signs for its domain). */
  sender: string;
  message(recipient: CampaignRecipientDoc): PlannedMessage;
}

/** The campaign's content planned for round `round` (0: the launch; n: resend round n). `fields`: the account's custom fields. */
export async function planCampaign(_campaign: CampaignDoc, _fields: FieldDoc[], _context: PlanContext, _round = 0): Promise<CampaignPlan> {
  throw new Error('not implemented yet');
}

/** Whether the message will carry an unsubscribe link: the footer (USE_FOOTER not `0`) or `${urls.unsubscribe}` in the body. */
export function hasUnsubscribeLink(_content: CampaignContentDoc, _options: Record<string, string>): boolean {
  throw new Error('not implemented yet');
}
