// Double opt-in, second half: the click in the confirmation mail. The token is used up in one
// findOneAndDelete, so two clicks (or two tabs) cannot both apply it; then the address becomes
// an ACTIVE contact of the list. This is the only way an UNSUBSCRIBED contact comes back (the
// spec: "the contact re-subscribes through an opt-in form"): the API has no call for it.
import { AppError, ErrorCode, errors } from '../shared/errors';
import { createContact } from '../contacts/contacts';
import { hashKey } from '../accounts/keys';
import type { ContactDoc, OptinConfirmationDoc, Store } from '../../adapters/store/store';

/** Tokens are randomToken()'s 32 alphanumerics; anything else is unknown without a lookup. */
const TOKEN = /^[A-Za-z0-9]{32}$/;

export type TokenState = 'valid' | 'unknown' | 'expired';

export type Confirmation =
  | { outcome: 'confirmed'; contact: ContactDoc; redirect?: string }
  | { outcome: 'unknown' | 'expired' };

/**
 * Whether a token would confirm this account's list, without using it or changing anything
 * (the page a link opens: scanners fetch it too).
 */
export async function tokenState(store: Store, account: string, listId: number, token: string): Promise<TokenState> {
  if (!TOKEN.test(token)) return 'unknown';
  const pending = await store.optinConfirmations.findOne({ _id: hashKey(token), account, listId });
  if (!pending) return 'unknown';
  return pending.expiresAt.getTime() > Date.now() ? 'valid' : 'expired';
}

/**
 * Uses the token and subscribes its address to the list. The lookup names the account and the
 * list of the path, so a token of one account's list confirms nothing elsewhere (and stays
 * usable where it belongs). An expired token is deleted when seen.
 */
export async function confirmOptin(store: Store, account: string, listId: number, token: string): Promise<Confirmation> {
  if (!TOKEN.test(token)) return { outcome: 'unknown' };
  const pending = await store.optinConfirmations.findOneAndDelete({ _id: hashKey(token), account, listId });
  if (!pending) return { outcome: 'unknown' };
  if (pending.expiresAt.getTime() <= Date.now()) return { outcome: 'expired' };
  let contact: ContactDoc;
  try {
    contact = await subscribe(store, pending);
  } catch (error) {
    // Put the token back (unless a newer one took its place), so the visitor can click again once the store answers.
    await store.optinConfirmations.insertOne(pending).catch(() => undefined);
    throw error;
  }
  return { outcome: 'confirmed', contact, ...(pending.redirect ? { redirect: pending.redirect } : {}) };
}

/**
 * Creates the contact (source OPTIN_FORM) in the list, or makes the existing one ACTIVE in it
 * (from any state: the address owner just confirmed). Only interests that still exist are
 * added; names are filled only when the visitor gave them. A create that loses a race with
 * another create becomes the update.
 */
async function subscribe(store: Store, pending: OptinConfirmationDoc): Promise<ContactDoc> {
  const { account, email, listId } = pending;
  const interests = await existingInterests(store, account, pending.interests);
  const names = {
    ...(pending.firstName ? { firstName: pending.firstName } : {}),
    ...(pending.lastName ? { lastName: pending.lastName } : {}),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await store.contacts.findOne({ account, email });
    if (existing) {
      const now = new Date();
      const have = new Set(existing.interests.map((i) => i.id));
      const added = interests.filter((id) => !have.has(id)).map((id) => ({ id, subscribed: now }));
      // One write: state, names, the list ($addToSet keeps its other lists) and the new interests.
      const updated = await store.contacts.findOneAndUpdate({ _id: existing._id, account }, {
        $set: { state: 'ACTIVE', inactivated: null, lastModified: now, ...names },
        $addToSet: { lists: listId },
        ...(added.length > 0 ? { $push: { interests: { $each: added } } } : {}),
      }, { returnDocument: 'after' });
      if (updated) return updated;
      continue; // deleted meanwhile: create it
    }
    try {
      return await createContact(store, account, { email, ...names, lists: [listId], interests }, 'OPTIN_FORM');
    } catch (error) {
      if (!(error instanceof AppError && error.code === ErrorCode.Conflict)) throw error; // created meanwhile: update it
    }
  }
  throw errors.unavailable('The contact is being changed by another request, please retry');
}

async function existingInterests(store: Store, account: string, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await store.interests.find({ account, id: { $in: ids } }).project<{ id: number }>({ id: 1 }).toArray();
  const exists = new Set(found.map((i) => i.id));
  return [...new Set(ids)].filter((id) => exists.has(id));
}
