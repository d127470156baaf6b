// The account's suppression list as the account API shows and edits it (…/suppressions). Adding
// is idempotent: an address already there keeps its first reason and date. Removing lifts only
// the list's block: a contact whose state is UNSUBSCRIBED, BOUNCED or COMPLAINED stays blocked
// (./suppressions.ts reads both) and is never made ACTIVE here; the answer says so.
import type { ContactState, Store, SuppressionDoc } from '../../adapters/store/store';
import { normaliseEmail } from '../accounts/users';
import { errors } from '../shared/errors';
import { idOf, suppress } from './suppressions';

export interface SuppressionView { email: string; reason: SuppressionDoc['reason']; created: Date; source: SuppressionDoc['source'] | null }

export interface SuppressionPageRequest { offset: number; limit: number; sortby: 'created' | 'email'; sortdir: 'asc' | 'desc'; contains?: string }

const view = (doc: SuppressionDoc): SuppressionView => ({ email: doc.email, reason: doc.reason, created: doc.created, source: doc.source ?? null });

/** A page of the list; `contains` is a substring of the address, in any letter case. */
export async function suppressionPage(store: Store, account: string, page: SuppressionPageRequest): Promise<{ items: SuppressionView[]; total: number }> {
  const query = {
    account,
    // The string form of $regex, every character literal: the embedded store misreads a BSON regex.
    ...(page.contains ? { email: { $regex: normaliseEmail(page.contains).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') } } : {}),
  };
  const dir = page.sortdir === 'asc' ? 1 : -1;
  const [docs, total] = await Promise.all([
    store.suppressions.find(query).sort({ [page.sortby]: dir, _id: dir }).skip(page.offset).limit(page.limit).toArray(),
    store.suppressions.countDocuments(query),
  ]);
  return { items: docs.map(view), total };
}

/** Puts the address on the list; `created` false when it was there already (left as it was). */
export async function addSuppression(
  store: Store, account: string, email: string, reason: SuppressionDoc['reason'] = 'manual',
): Promise<{ suppression: SuppressionView; created: boolean }> {
  const created = await suppress(store, account, email, reason, 'api');
  const doc = await store.suppressions.findOne({ _id: idOf(account, email), account });
  return { suppression: view(doc!), created };
}

/** Takes the address off the list (NOT_FOUND when absent); its contact's state, if it has one, is left alone and returned. */
export async function removeSuppression(store: Store, account: string, email: string): Promise<{ email: string; contactState: ContactState | null }> {
  const normalised = normaliseEmail(email);
  const { deletedCount } = await store.suppressions.deleteOne({ _id: idOf(account, normalised), account });
  if (deletedCount === 0) throw errors.notFound('This address is not on the suppression list');
  const contact = await store.contacts.findOne({ account, email: normalised }, { projection: { state: 1 } });
  return { email: normalised, contactState: contact?.state ?? null };
}
