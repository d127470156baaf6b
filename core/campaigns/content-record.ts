// A campaign's one content record (the spec allows one per campaign): its sender, subject and unsubscribe
// text, and its bodies set apart (raw HTML or MJML, and an optional text part). Every write needs
// the campaign in DRAFT, and is conditional on it, so a content never changes under a launch.
import { nextId } from '../../adapters/store/counters';
import { errors } from '../shared/errors';
import { compileMjml } from '../content/mjml';
import type { CampaignContentDoc, CampaignDoc, Store } from '../../adapters/store/store';
import { findCampaign, requireState } from './campaigns';
import { DEFAULT_UNSUBSCRIBE_TEXT } from './model';

/** What a body (`.html` or `.txt`) may weigh: the account API's request limit. */
export const MAX_CONTENT_BODY_BYTES = 1024 * 1024;

/** The content's fields a client sets (bodies aside). */
export interface ContentInput {
  subject?: string;
  from?: string;
  fromName?: string;
  replyTo?: string;
  replyToName?: string;
  unsubscribeText?: string;
}
export type ContentChanges = ContentInput;

const FIELDS = ['subject', 'from', 'fromName', 'replyTo', 'replyToName', 'unsubscribeText'] as const;

/** The content named `contentId`, or 404. */
export function contentOf(campaign: CampaignDoc, contentId: number): CampaignContentDoc {
  if (!campaign.content || campaign.content.id !== contentId) throw errors.notFound(`Campaign ${campaign.id} has no content ${Number.isNaN(contentId) ? '' : contentId}`.trim());
  return campaign.content;
}

/** An empty unsubscribe text means the default one; addresses are kept as given, trimmed. */
function normalise(input: ContentInput): ContentInput {
  const out: ContentInput = {};
  for (const key of FIELDS) {
    const value = input[key];
    if (value === undefined) continue;
    out[key] = key === 'subject' || key === 'fromName' || key === 'replyToName' ? value : value.trim();
  }
  if (out.unsubscribeText !== undefined && out.unsubscribeText.trim() === '') out.unsubscribeText = DEFAULT_UNSUBSCRIBE_TEXT;
  return out;
}

/** After a conditional write missed: the campaign is gone, left DRAFT, or its content changed meanwhile. */
async function explainMiss(store: Store, campaign: CampaignDoc, contentId: number | null): Promise<never> {
  const now = await findCampaign(store, campaign.account, campaign.id);
  if (!now) throw errors.notFound('No such campaign');
  requireState(now, ['DRAFT'], 'change its content');
  if (contentId === null && now.content) throw secondContent(now);
  throw errors.notFound(`Campaign ${campaign.id} has no content ${contentId ?? ''}`.trim());
}

const secondContent = (campaign: CampaignDoc) => errors.badRequest(
  `Campaign ${campaign.id} already has its content (id ${campaign.content!.id}): one content per campaign; change it with PUT …/contents/${campaign.content!.id}`,
);

/** The campaign's content, once: a second one is 400 (one content per campaign). */
export async function createContent(store: Store, campaign: CampaignDoc, input: ContentInput & Required<Pick<ContentInput, 'subject' | 'from' | 'fromName'>>): Promise<CampaignContentDoc> {
  requireState(campaign, ['DRAFT'], 'change its content');
  if (campaign.content) throw secondContent(campaign);
  const given = normalise(input);
  const now = new Date();
  const content: CampaignContentDoc = {
    id: await nextId(store, campaign.account, 'campaignContents'),
    type: 'HTML',
    subject: given.subject!, from: given.from!, fromName: given.fromName!,
    replyTo: given.replyTo ?? '', replyToName: given.replyToName ?? '', unsubscribeText: given.unsubscribeText ?? DEFAULT_UNSUBSCRIBE_TEXT,
    html: null, text: null, created: now, lastModified: now,
  };
  const { matchedCount } = await store.campaigns.updateOne(
    { _id: campaign._id, account: campaign.account, state: 'DRAFT', content: null },
    { $set: { content, lastModified: now } },
  );
  if (matchedCount === 0) await explainMiss(store, campaign, null);
  return content;
}

/** Applies the fields that differ; returns only those. */
export async function updateContent(store: Store, campaign: CampaignDoc, content: CampaignContentDoc, input: ContentInput): Promise<ContentChanges> {
  requireState(campaign, ['DRAFT'], 'change its content');
  const given = normalise(input);
  const changes: ContentChanges = {};
  for (const key of FIELDS) if (given[key] !== undefined && given[key] !== content[key]) changes[key] = given[key];
  if (Object.keys(changes).length > 0) await setFields(store, campaign, content.id, changes);
  return changes;
}

async function setFields(store: Store, campaign: CampaignDoc, contentId: number, fields: object, unset: string[] = []): Promise<void> {
  const now = new Date();
  const set = Object.fromEntries(Object.entries(fields).map(([key, value]) => [`content.${key}`, value]));
  const { matchedCount } = await store.campaigns.updateOne(
    { _id: campaign._id, account: campaign.account, state: 'DRAFT', 'content.id': contentId },
    { $set: { ...set, 'content.lastModified': now, lastModified: now }, ...(unset.length > 0 ? { $unset: Object.fromEntries(unset.map((k) => [`content.${k}`, ''])) } : {}) },
  );
  if (matchedCount === 0) await explainMiss(store, campaign, contentId);
}

export async function deleteContent(store: Store, campaign: CampaignDoc, content: CampaignContentDoc): Promise<void> {
  requireState(campaign, ['DRAFT'], 'change its content');
  const { matchedCount } = await store.campaigns.updateOne(
    { _id: campaign._id, account: campaign.account, state: 'DRAFT', 'content.id': content.id },
    { $set: { content: null, lastModified: new Date() } },
  );
  if (matchedCount === 0) await explainMiss(store, campaign, content.id);
}

/** Whether a body is MJML: it begins with the `<mjml` root (after spaces or a byte order mark). */
export function isMjml(body: string): boolean {
  return /^\uFEFF?\s*<mjml[\s>]/i.test(body);
}

/**
 * Sets the HTML body. MJML is compiled here, once (strict validation: an error is a
 * VALIDATION_ERROR on `body` naming its line), and kept beside the HTML it gave. An empty body
 * clears it. Answers the content as it now is.
 */
export async function setHtmlBody(store: Store, campaign: CampaignDoc, content: CampaignContentDoc, body: string): Promise<CampaignContentDoc> {
  requireState(campaign, ['DRAFT'], 'change its content');
  const blank = body.trim() === '';
  const mjml = !blank && isMjml(body) ? body : undefined;
  const html = blank ? null : mjml !== undefined ? await compileMjml(mjml, 'body') : body;
  await setFields(store, campaign, content.id, { html, ...(mjml !== undefined ? { mjml } : {}) }, mjml === undefined ? ['mjml'] : []);
  const { mjml: _previous, ...rest } = content;
  return { ...rest, html, ...(mjml !== undefined ? { mjml } : {}) };
}

/** Sets the plain-text part; an empty body removes it. */
export async function setTextBody(store: Store, campaign: CampaignDoc, content: CampaignContentDoc, body: string): Promise<CampaignContentDoc> {
  requireState(campaign, ['DRAFT'], 'change its content');
  const text = body.trim() === '' ? null : body;
  await setFields(store, campaign, content.id, { text });
  return { ...content, text };
}
