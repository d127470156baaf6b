// OWNED BY HELPER C. Stub signature fixed by the lead; replace the body.
// POST /campaigns/{id}/contents/{cid}/sendtest: the content, as a recipient would get it, to at
// most 10 addresses, accepted like a transactional send (durable: answered once Temporal has it).
import type { AcceptDeps, AcceptedIds } from '../transactional/accept';
import type { CampaignDoc } from '../store';

export const MAX_TEST_ADDRESSES = 10;

export async function sendTestMessages(_deps: AcceptDeps, _campaign: CampaignDoc, _emails: string[]): Promise<AcceptedIds> {
  throw new Error('not implemented yet');
}
