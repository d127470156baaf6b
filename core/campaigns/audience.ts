// Who a campaign goes to: include lists ∪ interests ∪ recipients of included campaigns, minus
// the excludes, minus unsubscribed, bounced, complained and suppressed contacts, each once.
//
// The contacts are read in pages of ids (core/contacts/id-pages.ts: each page a few lookups of
// the unique index, so a launch never holds the contacts for the whole read); the selection is
// checked in memory and the suppression list in chunks by its unique keys. A launch's snapshot
// (./snapshot.ts) is written from these chunks.
import type { CampaignAction, CampaignAudience, CampaignDoc, ContactDoc, Store } from '../../adapters/store/store';
import type { Filter } from 'mongodb';
import { contactIdPages } from '../contacts/id-pages';
import { onSuppressionList } from '../sending/suppressions';
import { campaignBatchId, campaignRequestId } from './model';

/** Selected contacts checked against the suppression list and written per chunk. */
const CHUNK = 1000;
/** Emails of included campaigns passed to the store as an `$in` filter up to this many; beyond, the contacts are filtered here. */
const MAX_EMAILS_IN_QUERY = 20_000;

type AudienceContact = Pick<ContactDoc, 'id' | 'email' | 'firstName' | 'lastName' | 'gender' | 'language' | 'customFields' | 'lists' | 'interests'>;

/** One side (include or exclude) of the audience, made into tests on a contact. */
interface Side {
  lists: Set<number>;
  /** Interest id → days a contact's interest lasts (0: for ever). */
  interests: Map<number, number>;
  /** Lowercase emails of the recipients of the named campaigns (by action). */
  emails: Set<string>;
}

/** How many contacts the campaign would be sent to now (validate's "at least one recipient"). */
export async function countAudience(store: Store, campaign: CampaignDoc): Promise<number> {
  let count = 0;
  for await (const chunk of audienceChunks(store, campaign)) count += chunk.length;
  return count;
}

/** The campaign's audience, in chunks of at most CHUNK contacts, each contact once. */
export async function* audienceChunks(store: Store, campaign: CampaignDoc): AsyncGenerator<AudienceContact[]> {
  const { account } = campaign;
  const [include, exclude] = await Promise.all([sideOf(store, account, campaign.include), sideOf(store, account, campaign.exclude)]);
  if (include.lists.size === 0 && include.interests.size === 0 && include.emails.size === 0) return;
  const now = Date.now();
  const selected = (contact: AudienceContact) => matches(include, contact, now) && !matches(exclude, contact, now);
  const pages = contactIdPages<AudienceContact>(store, account, contactFilter(include), {
    _id: 0, id: 1, email: 1, firstName: 1, lastName: 1, gender: 1, language: 1, customFields: 1, lists: 1, interests: 1,
  });
  let batch: AudienceContact[] = [];
  // Only ACTIVE contacts are read (contactFilter): the suppression list is what is left to check.
  const flush = async () => {
    const suppressed = await onSuppressionList(store, account, batch.map((c) => c.email));
    const kept = batch.filter((c) => !suppressed.has(c.email.toLowerCase()));
    batch = [];
    return kept;
  };
  for await (const page of pages) {
    for (const contact of page.contacts) {
      if (!selected(contact)) continue;
      batch.push(contact);
      if (batch.length >= CHUNK) {
        const kept = await flush();
        if (kept.length > 0) yield kept;
      }
    }
  }
  if (batch.length > 0) {
    const kept = await flush();
    if (kept.length > 0) yield kept;
  }
}

/**
 * Active contacts only (UNSUBSCRIBED, BOUNCED and COMPLAINED get no campaign), narrowed to the
 * included lists, interests and campaign recipients when the store can be told them in one query.
 */
function contactFilter(include: Side): Filter<ContactDoc> {
  const filter: Filter<ContactDoc> = { state: 'ACTIVE' };
  if (include.emails.size > MAX_EMAILS_IN_QUERY) return filter;
  const any: Array<Record<string, unknown>> = [];
  if (include.lists.size > 0) any.push({ lists: { $in: [...include.lists] } });
  if (include.interests.size > 0) any.push({ 'interests.id': { $in: [...include.interests.keys()] } });
  if (include.emails.size > 0) any.push({ email: { $in: [...include.emails] } });
  return { ...filter, $or: any };
}

function matches(side: Side, contact: AudienceContact, now: number): boolean {
  if (contact.lists?.some((id) => side.lists.has(id))) return true;
  if (contact.interests?.some((interest) => hasInterest(side, interest, now))) return true;
  return side.emails.has(contact.email.toLowerCase());
}

/** An interest counts while it lasts: its expirationDays after the contact took it (0: always). */
function hasInterest(side: Side, interest: ContactDoc['interests'][number], now: number): boolean {
  const days = side.interests.get(interest.id);
  if (days === undefined) return false;
  return days === 0 || new Date(interest.subscribed).getTime() + days * 86_400_000 > now;
}

async function sideOf(store: Store, account: string, audience: CampaignAudience | undefined): Promise<Side> {
  const lists = new Set(audience?.lists ?? []);
  const interestIds = audience?.interests ?? [];
  const interests = new Map<number, number>();
  if (interestIds.length > 0) {
    const found = await store.interests.find({ account, id: { $in: interestIds } }).project<{ id: number; expirationDays: number }>({ id: 1, expirationDays: 1 }).toArray();
    for (const interest of found) interests.set(interest.id, interest.expirationDays ?? 0);
  }
  const emails = new Set<string>();
  for (const member of audience?.campaigns ?? []) {
    for (const email of await campaignRecipientEmails(store, account, member.id, member.action)) emails.add(email);
  }
  return { lists, interests, emails };
}

/**
 * The lowercase addresses a campaign's `action` selects: SENT its messages the relay took (every
 * round's), OPENED and CLICKED those with a first open or click, NO_OPEN and NO_CLICK the sent
 * ones without. A campaign that does not exist selects no one.
 */
export async function campaignRecipientEmails(store: Store, account: string, campaignId: number, action: CampaignAction): Promise<Set<string>> {
  const campaign = await store.campaigns.findOne({ _id: `${account}:${campaignId}`, account }, { projection: { launch: 1 } });
  if (!campaign) return new Set();
  const rounds = campaign.launch?.rounds ?? 0;
  const requestIds = Array.from({ length: rounds + 1 }, (_, round) => campaignRequestId(campaignId, round));
  const sent = new Set((await store.ledger.find({ account, '_ledger.requestId': { $in: requestIds }, '_ledger.status': 'sent' })
    .project<{ email: string }>({ _id: 0, email: 1 }).toArray()).map((row) => row.email.toLowerCase()));
  if (action === 'SENT') return sent;
  const trackType = action === 'OPENED' || action === 'NO_OPEN' ? 'track.mail.first_opened' : 'track.mail.first_clicked';
  const acted = new Set((await store.events.find({ account, batch_id: campaignBatchId(account, campaignId), track_type: trackType })
    .project<{ email: string }>({ _id: 0, email: 1 }).toArray()).map((event) => event.email.toLowerCase()));
  if (action === 'OPENED' || action === 'CLICKED') return acted;
  return new Set([...sent].filter((email) => !acted.has(email)));
}
