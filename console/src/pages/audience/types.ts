// The audience API's records as the console reads them (api/account/contacts.ts, lists.ts, interests.ts, fields.ts, tasks.ts).

export type ContactState = 'ACTIVE' | 'UNSUBSCRIBED' | 'BOUNCED' | 'COMPLAINED';

/** A row of GET /contacts. */
export interface ContactRow { id: number; email: string; firstName: string; lastName: string; state: ContactState; quality: number }

/** GET /contacts/{ref}: the full record. */
export interface Contact extends ContactRow {
  gender: string;
  language: string;
  preferredFormat: string;
  source: string;
  lastMailed: string | null;
  lastAction: string | null;
  created: string | null;
  lastModified: string | null;
  inactivated: string | null;
  lists: Array<{ id: number; name: string }>;
  interests: Array<{ id: number; name: string; subscribed: string | null }>;
  customFields: Array<{ id: number; name: string; format: string; value: string }>;
}

export interface ListRecord {
  id: number; name: string; description: string; created: string; lastMailed: string | null;
  activeContacts: number; totalContacts: number; tags: string[];
}

export interface InterestRecord { id: number; name: string; description: string; expirationDays: number; created: string }

export interface FieldRecord { id: number; name: string; tag: string; format: string; custom: boolean }
