// POST …/campaigns/{id}/contents/{contentId}/preview: the content as a recipient would get it,
// rendered by the send's own plan (./plan.ts campaignCopies: layout, options, merge tags), with
// the saved content or the unsaved fields the editor sends, so nothing is stored. The recipient is
// the account's contact of `email` when there is one, else a sample contact (Jane Doe, every
// custom field filled with a sample of its format). Tracking is left out: no open pixel, links
// go straight to their targets (utm parameters added when ANALYTICS is on, as sent); the message's
// own links (unsubscribe, online version, shares) point at Herald with tokens signed by a key
// thrown away after the call, so a click on them in a preview is refused and acts on nobody.
import { randomBytes } from 'node:crypto';
import type { CampaignContentDoc, CampaignDoc, CampaignRecipient, FieldDoc, Store } from '../../adapters/store/store';
import { normaliseEmail } from '../accounts/users';
import { compileMjml } from '../content/mjml';
import { templateErrors } from '../content/personalise';
import { htmlToText } from '../content/text-renderings';
import { errors, fieldError, type FieldError } from '../shared/errors';
import { isMjml } from './content-record';
import { campaignCopies } from './plan';

export interface PreviewInput { html?: string; mjml?: string; text?: string; subject?: string; email?: string }

export interface Preview {
  subject: string;
  html: string;
  /** The text part; without one, the text derived from the HTML (what GET …/{contentId}.txt gives). */
  text: string;
  /** Whether `text` was derived from the HTML (the message itself then has no text part). */
  textDerived: boolean;
  /** Whose values filled the merge tags: the account's contact of `email`, or a sample. */
  contact: { email: string; sample: boolean };
}

const SAMPLE_BY_FORMAT: Record<FieldDoc['format'], (field: FieldDoc) => string> = {
  TEXT: (field) => `Sample ${field.name}`.slice(0, 1000),
  INT: () => '42',
  DATE: () => new Date().toISOString().slice(0, 10),
};

export async function previewContent(
  store: Store, campaign: CampaignDoc, content: CampaignContentDoc, input: PreviewInput, publicUrl: string,
): Promise<Preview> {
  const { account } = campaign;
  const html = await htmlOf(content, input);
  const subject = input.subject ?? content.subject;
  const text = input.text !== undefined ? (input.text === '' ? null : input.text) : content.text;
  const problems = templateErrors({ subject, content: { html, ...(text !== null ? { text } : {}) } });
  const htmlField = input.mjml !== undefined ? 'mjml' : 'html';
  const named: Record<string, FieldError> = {};
  for (const [field, message] of Object.entries(problems)) {
    const name = field === 'content.html' ? htmlField : field === 'content.text' ? 'text' : field;
    named[name] = fieldError('invalid_value', `Template error: ${message}`);
  }
  if (Object.keys(named).length > 0) throw errors.validation(named);

  const [fields, contact] = await Promise.all([
    store.fields.find({ account }).toArray(),
    input.email !== undefined ? store.contacts.findOne({ account, email: normaliseEmail(input.email) }) : null,
  ]);
  const row: CampaignRecipient = contact
    ? {
      seq: 0, contactId: contact.id, email: contact.email, firstName: contact.firstName, lastName: contact.lastName,
      gender: contact.gender, language: contact.language, customFields: contact.customFields,
    }
    : {
      seq: 0, contactId: 0, email: input.email ?? 'jane.doe@example.com', firstName: 'Jane', lastName: 'Doe', gender: 'F', language: 'en',
      customFields: Object.fromEntries(fields.map((field) => [String(field.id), SAMPLE_BY_FORMAT[field.format](field)])),
    };
  // Click tracking off: the preview shows the links' targets. campaignCopies leaves the pixel out (pixel false).
  const shown: CampaignDoc = {
    ...campaign,
    options: { ...campaign.options, TRACK_LINKS: '0' },
    content: { ...content, html, text, subject },
  };
  const links = { publicUrl, secret: randomBytes(32) };
  const { copy } = campaignCopies(shown, fields, links, 0, false).copy(row);
  const rendered = copy.html ?? '';
  return {
    subject: copy.subject,
    html: rendered,
    // The text part as sent: the content's own, else the one made from its HTML (core/content/text-alternative.ts).
    text: copy.text ?? htmlToText(rendered),
    textDerived: !text,
    contact: { email: row.email, sample: !contact },
  };
}

/** The HTML to show: `mjml` compiled, `html` (compiled when it is MJML, as a saved body is), or the saved one. */
async function htmlOf(content: CampaignContentDoc, input: PreviewInput): Promise<string> {
  if (input.mjml !== undefined) return compileMjml(input.mjml, 'mjml');
  if (input.html !== undefined) return isMjml(input.html) ? compileMjml(input.html, 'html') : input.html;
  if (content.html === null) throw errors.validation({ html: fieldError('required', 'The content has no HTML body yet: give html or mjml, or set it first') });
  return content.html;
}
