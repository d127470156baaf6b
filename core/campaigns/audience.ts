// OWNED BY HELPER B. Stub signature fixed by the lead; replace the body.
// Who a campaign goes to: include lists ∪ interests ∪ recipients of included campaigns, minus
// the excludes, minus unsubscribed, bounced, complained and suppressed contacts, each once.
import type { CampaignDoc, Store } from '../store';

/** How many contacts the campaign would be sent to now (validate's "at least one recipient"). */
export async function countAudience(_store: Store, _campaign: CampaignDoc): Promise<number> {
  throw new Error('not implemented yet');
}
