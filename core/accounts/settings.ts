// An account's sending policy: whether its transactional sends may carry attachments, how many
// messages it may send per calendar month, and which domains its From addresses may use; and how
// many days its message history is kept (core/retention/). An operator sets it with `herald
// account set` (cli/main.ts), the retention also through PUT /v2/{account}/retention; the send
// path reads it per request. Stored on the account document (AccountDoc.settings); what is not
// stored takes the defaults.
import { byId } from '../../adapters/batching/read-batch';
import type { AccountDoc, Store } from '../../adapters/store/store';
import { perStore } from '../../adapters/store/per-store';
import { DEFAULT_RETENTION_DAYS } from '../retention/policy';

export interface AccountSettings {
  attachments: boolean;
  /** Messages (recipients) per calendar month (UTC); null: no limit. */
  monthlyLimit: number | null;
  /** Lowercase domains; empty: any From address. */
  senderDomains: string[];
  /** Custom trigger events accepted per clock hour (the spec: 200); more are refused (TOO_MANY_REQUESTS) and discarded. */
  triggerHourlyLimit: number;
  /** Days request bodies and message events are kept (core/retention/policy.ts: 7 to 3650, 45 by default). */
  retentionDays: number;
}

/** A new account: no attachments (the spec enables them "by request"), no limit, any sender, the spec's 200 trigger events an hour, 45 days of history. */
export const DEFAULT_SETTINGS: Readonly<AccountSettings> = Object.freeze({
  attachments: false, monthlyLimit: null, senderDomains: [], triggerHourlyLimit: 200, retentionDays: DEFAULT_RETENTION_DAYS,
});

/** A DNS name in lowercase ASCII (IDNs in their xn-- form): labels of letters, digits and inner hyphens, at least two. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The domain in the form settings keep it (lowercase), or undefined when it is not a domain name. */
export function normaliseDomain(input: string): string | undefined {
  const domain = input.trim().toLowerCase();
  return DOMAIN.test(domain) ? domain : undefined;
}

export function settingsOf(doc: Pick<AccountDoc, 'settings'>): AccountSettings {
  const stored = doc.settings ?? {};
  return {
    attachments: stored.attachments ?? DEFAULT_SETTINGS.attachments,
    monthlyLimit: stored.monthlyLimit ?? DEFAULT_SETTINGS.monthlyLimit,
    senderDomains: stored.senderDomains ?? [...DEFAULT_SETTINGS.senderDomains],
    triggerHourlyLimit: stored.triggerHourlyLimit ?? DEFAULT_SETTINGS.triggerHourlyLimit,
    retentionDays: stored.retentionDays ?? DEFAULT_SETTINGS.retentionDays,
  };
}

/** Sends arriving together read their accounts' settings with one query (adapters/batching/read-batch.ts). */
const settingsById = perStore((store) => byId((ids) => store.accounts.find({ _id: { $in: ids } }).project<Pick<AccountDoc, '_id' | 'settings'>>({ settings: 1 }).toArray()));

/** The account's settings, or null when there is no such account. */
export async function readAccountSettings(store: Store, account: string): Promise<AccountSettings | null> {
  const doc = await settingsById(store).get(account);
  return doc ? settingsOf(doc) : null;
}

/**
 * Changes the given settings only (one atomic update of the account document) and returns
 * them all as they are now, or null when there is no such account. Values are expected
 * checked by the caller (domains through normaliseDomain, days through isRetentionDays).
 */
export async function updateAccountSettings(store: Store, account: string, change: Partial<AccountSettings>): Promise<AccountSettings | null> {
  const set: Record<string, unknown> = {};
  if (change.attachments !== undefined) set['settings.attachments'] = change.attachments;
  if (change.monthlyLimit !== undefined) set['settings.monthlyLimit'] = change.monthlyLimit;
  if (change.senderDomains !== undefined) set['settings.senderDomains'] = [...new Set(change.senderDomains)];
  if (change.triggerHourlyLimit !== undefined) set['settings.triggerHourlyLimit'] = change.triggerHourlyLimit;
  if (change.retentionDays !== undefined) set['settings.retentionDays'] = change.retentionDays;
  if (Object.keys(set).length === 0) return readAccountSettings(store, account);
  const doc = await store.accounts.findOneAndUpdate({ _id: account }, { $set: set }, { returnDocument: 'after', projection: { settings: 1 } });
  return doc ? settingsOf(doc) : null;
}

/**
 * Whether the account may send from `email`: any address when it has no sender domains, else
 * only one whose domain is exactly one of them (letter case aside). Subdomains do not count:
 * `mail.example.com` must be listed itself to be allowed beside `example.com`, so allowing a
 * domain never allows hosts under it that someone else may run.
 */
export function isAllowedSender(settings: Pick<AccountSettings, 'senderDomains'>, email: string): boolean {
  if (settings.senderDomains.length === 0) return true;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return settings.senderDomains.includes(domain);
}
