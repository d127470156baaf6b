// Tracking tokens already verified, kept by their text: a message's pixel is fetched at every
// open and its links at every click, and verifying costs an HMAC or two, a JSON parse and the
// mail_id's hash. A click token naming a link table's entry is valid once both signatures hold
// and the entry is found (core/content/tracking/link-tables.ts, whose tables are kept too); it
// is kept with the entry. Only valid tokens are kept (a forged one is verified, and refused, each
// time), at most MAX_KEPT of them (the oldest dropped first). A token's payload never changes: it
// is what its signature covers, or a table entry, which is never changed either.
import { mailIdOf } from '../sending/plan';
import { campaignMailId, parseCampaignRequestId } from '../campaigns/model';
import type { Store } from '../../adapters/store/store';
import { linkTablesOf } from '../content/tracking/link-tables';
import { trackingSecret } from '../content/tracking/secret';
import { verifyTrackingToken, type MessageKind, type TableClick, type TrackingPayload } from '../content/tracking/token';

const MAX_KEPT = 50_000;


/** The mail_id of the message a token names: a campaign's by its own formula (core/campaigns/model.ts) when the token says so, else the send engine's. */
export function messageMailId({ account, requestId, index, seqMailId }: TrackingPayload['message']): string {
  const campaign = seqMailId && parseCampaignRequestId(requestId);
  return campaign ? campaignMailId(account, campaign.campaignId, index, campaign.round) : mailIdOf(account, requestId, index);
}

export interface VerifiedToken<P extends TrackingPayload = TrackingPayload> {
  payload: P;
  /** The mail_id of the message it names (as core/sending/plan.ts derives it). */
  mailId: string;
}

type ClickPayload = Extract<TrackingPayload, { kind: 'c' }>;
type MessagePayload = Extract<TrackingPayload, { kind: MessageKind }>;

export class VerifiedTokens {
  private readonly kept = new Map<string, VerifiedToken>();
  private secret: Buffer | undefined;

  constructor(private readonly store: Store) {}

  verify(kind: 'c', token: string): Promise<VerifiedToken<ClickPayload> | undefined>;
  verify(kind: MessageKind, token: string): Promise<VerifiedToken<MessagePayload> | undefined>;
  async verify(kind: 'c' | MessageKind, token: string): Promise<VerifiedToken | undefined> {
    const key = `${kind}/${token}`;
    const known = this.kept.get(key);
    if (known) return known;
    this.secret ??= await trackingSecret(this.store);
    const signed = verifyTrackingToken(this.secret, kind, token);
    const payload = signed && 'tableLink' in signed ? await this.withTableLink(signed) : signed;
    if (!payload) return undefined;
    const verified = { payload, mailId: messageMailId(payload.message) };
    if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, verified);
    return verified;
  }

  /** A table click with its table's entry; null when the request has no such table or entry. */
  private async withTableLink(click: TableClick): Promise<ClickPayload | null> {
    const { message, tableLink } = click;
    const link = await linkTablesOf(this.store).link(message.account, message.requestId, tableLink);
    return link ? { kind: 'c', message, link } : null;
  }
}
