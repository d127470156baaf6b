// The online version of a message (`${urls.online_version}`, `/t/v/{token}`): its HTML as that
// recipient got it, rendered again from the stored request (the same templates, substitutions
// and signed links: rendering is deterministic), so nothing per message is stored for it. The
// open pixel is left out (a view online is its own event, not an open); click links stay
// tracked. A message without HTML shows its text.
import type { SendRequestDoc, Store } from '../../adapters/store/store';
import { contentRenderer, type LinkContext } from '../content/personalise';
import { readHttpBody, readSmtpSubmission } from '../transactional/request';
import { MessageTokens, trackedHtmlRenderer } from '../content/tracking/rewrite';
import type { MessageIdentity, MessageRef } from '../content/tracking/token';
import { mailIdOf } from '../sending/plan';
import { parseCampaignRequestId } from '../campaigns/model';
import { campaignOnlineVersion } from '../campaigns/online-version';
import { parseAutomationRequestId } from '../automations/model';
import { automationOnlineVersion } from '../automations/online-version';

export type OnlineVersion = { type: 'html' | 'text'; body: string };

const NO_PIXEL = { open: { enable: false } };

/** The message's content as its recipient got it; undefined when the request or its recipient is not stored. */
export async function onlineVersion(store: Store, links: LinkContext, ref: MessageRef): Promise<OnlineVersion | undefined> {
  // A campaign's message: from the campaign and its recipient snapshot (core/campaigns/online-version.ts).
  const campaign = parseCampaignRequestId(ref.requestId);
  if (campaign) return campaignOnlineVersion(store, links, ref, campaign);
  // An automation's message: from the run's step, its event and the contact (core/automations/online-version.ts).
  const automation = parseAutomationRequestId(ref.requestId);
  if (automation) return automationOnlineVersion(store, links, ref, automation);
  const request = await store.sendRequests.findOne({ _id: ref.requestId, account: ref.account });
  return request ? render(request, links, ref) : undefined;
}

function render(request: SendRequestDoc, links: LinkContext, ref: MessageRef): OnlineVersion | undefined {
  const identity = (email: string): MessageIdentity => ({ ...ref, mailId: mailIdOf(ref.account, ref.requestId, ref.index), batchId: request.batchId, email });
  if (request.source === 'smtp') {
    const { rcptTo, message } = readSmtpSubmission(request);
    const email = rcptTo[ref.index];
    if (email === undefined) return undefined;
    if (message.html === undefined) return { type: 'text', body: message.text ?? '' };
    return { type: 'html', body: trackedHtmlRenderer(message.html, NO_PIXEL, links, true)({}, new MessageTokens(links, identity(email))) };
  }
  const body = readHttpBody(request);
  const recipient = body.recipients[ref.index];
  if (!recipient) return undefined;
  const copy = contentRenderer({ ...body, tracking: { ...body.tracking, ...NO_PIXEL } }, links)(recipient, identity(recipient.to.email));
  return copy.html !== undefined ? { type: 'html', body: copy.html } : { type: 'text', body: copy.text ?? '' };
}
