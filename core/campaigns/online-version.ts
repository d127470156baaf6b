// The online version of a campaign message (`/t/v/{token}` whose request id is a campaign's): its
// HTML as that recipient got it, rendered again from the campaign and the recipient's snapshot
// entry through the same plan (./plan.ts), without the open pixel, its click links those of the
// message: in its request's link table when it has one (a message sent before link tables has
// none and carried every link). A campaign's content cannot change once launched, so the copy is
// the one sent; a custom field renamed or deleted since shows as the account's fields are now.
import type { Store } from '../../adapters/store/store';
import type { LinkContext } from '../content/personalise';
import { linkTablesOf } from '../content/tracking/link-tables';
import type { MessageRef } from '../content/tracking/token';
import { campaignCopies } from './plan';
import { snapshotRecipients } from './snapshot';

export type CampaignOnlineVersion = { type: 'html' | 'text'; body: string };

/** The copy of snapshot recipient `ref.index` of the campaign; undefined when the campaign, its content or the row is gone. */
export async function campaignOnlineVersion(
  store: Store, links: LinkContext, ref: MessageRef, campaign: { campaignId: number; round: number },
): Promise<CampaignOnlineVersion | undefined> {
  const { account } = ref;
  const [doc, fields, linkTable] = await Promise.all([
    store.campaigns.findOne({ _id: `${account}:${campaign.campaignId}`, account }),
    store.fields.find({ account }).toArray(),
    linkTablesOf(store).has(account, ref.requestId),
  ]);
  if (!doc?.launch || typeof doc.content?.html !== 'string') return undefined;
  const [row] = (await snapshotRecipients(store, account, campaign.campaignId, doc.launch.taskId, [ref.index])).recipients;
  if (!row) return undefined;
  const { copy } = campaignCopies(doc, fields, { ...links, linkTable }, campaign.round, false).copy(row);
  return { type: 'html', body: copy.html ?? '' };
}
