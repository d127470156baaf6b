// The `contact` of a campaign message's model, from the recipient's snapshot row (or of an
// automation's message, from the contact itself): the built-in
// fields under their snake_case names, and each custom field of the account by its tag as defined
// (`NUMERODECLIENTE`) and in lower case (`numerodecliente`). A field the contact has no value for
// is "" (so `${contact.x!"fallback"}` shows the fallback, and `[#if contact.x??]` sees the field).
import type { CampaignRecipient, FieldDoc } from '../../adapters/store/store';
import type { Model } from '../content/dialect/dialect';

/** The custom fields' ids and the names they take in the model, read once per plan. */
export type FieldNames = ReadonlyArray<{ id: string; tag: string; lower: string }>;

export function fieldNamesOf(fields: readonly FieldDoc[]): FieldNames {
  return fields.map((field) => ({ id: String(field.id), tag: field.tag, lower: field.tag.toLowerCase() }));
}

const BUILT_IN_NAMES = new Set(['id', 'email', 'first_name', 'last_name', 'gender', 'language']);

/** What the model reads of a contact: a snapshot's recipient (CampaignRecipient, `contactId`) or a ContactDoc (`id`). */
export type ModelContact = Pick<CampaignRecipient, 'email' | 'firstName' | 'lastName' | 'gender' | 'language' | 'customFields'>
  & ({ contactId: number } | { id: number });

export function contactModel(recipient: ModelContact, fields: FieldNames): Model {
  const contact: Model = {
    id: 'contactId' in recipient ? recipient.contactId : recipient.id,
    email: recipient.email,
    first_name: recipient.firstName,
    last_name: recipient.lastName,
    gender: recipient.gender,
    language: recipient.language,
  };
  const values = recipient.customFields ?? {};
  for (const { id, tag, lower } of fields) {
    // Own values only: a field id is never a prototype key, but the row is data.
    const value = Object.hasOwn(values, id) ? values[id] : '';
    contact[tag] = value;
    if (!BUILT_IN_NAMES.has(lower)) contact[lower] = value; // a tag such as FIRST_NAME never hides the built-in field
  }
  return contact;
}

/** The name a message is addressed to: first and last name, or none. */
export function displayName(recipient: Pick<CampaignRecipient, 'firstName' | 'lastName'>): string {
  return `${recipient.firstName ?? ''} ${recipient.lastName ?? ''}`.trim();
}
