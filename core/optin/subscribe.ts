// Double opt-in through a list's hosted form, first half: a visitor asks to subscribe an
// address, Herald records a pending confirmation and mails its link. Nothing about any contact
// changes here (no subscribing strangers, no re-subscribing someone else's address): only the
// click in the mail does that (core/optin/confirm.ts). What happens here is the same whether
// the address is a contact or not, so the answer cannot tell.
import { hashKey, randomToken } from '../accounts/keys';
import { confirmationMail, type OptinSettings } from './mail';
import { isDuplicateKey, type ListDoc, type OptinConfirmationDoc } from '../../adapters/store/store';
import { acceptSendRequest, type AcceptDeps } from '../transactional/accept';

/** How long a confirmation link works. */
export const CONFIRMATION_HOURS = 48;
/** At most one confirmation mail per address and list in this time: a repeat sends nothing. */
export const REPEAT_MINUTES = 10;

export interface OptinDeps extends AcceptDeps { settings: OptinSettings }

/** What the visitor asked for, validated: a normalised email; '' for a name not given. */
export interface OptinRequest { email: string; firstName: string; lastName: string; interests: number[]; redirect?: string }

/**
 * Records a pending confirmation for `list` and mails its link: 'sent'; or 'repeat' when a
 * mail went to this address for this list less than REPEAT_MINUTES ago (nothing is sent, and
 * the caller answers the same). A later request replaces the pending one: only the newest link
 * works. When the mail cannot be accepted (store or Temporal down) the pending confirmation is
 * removed and the error thrown (unavailable: the visitor can simply retry).
 */
export async function requestOptin(deps: OptinDeps, list: ListDoc, request: OptinRequest): Promise<'sent' | 'repeat'> {
  const { store } = deps;
  const now = new Date();
  const key = { account: list.account, listId: list.id, email: request.email };
  // Expired confirmations are swept here (scoped to the account): the embedded store applies no TTL index.
  await store.optinConfirmations.deleteMany({ account: list.account, expiresAt: { $lte: now } });
  const existing = await store.optinConfirmations.findOne(key);
  if (existing) {
    if (now.getTime() - existing.createdAt.getTime() < REPEAT_MINUTES * 60_000) return 'repeat';
    // Of simultaneous requests only the one that removed it goes on; the others are repeats.
    const { deletedCount } = await store.optinConfirmations.deleteOne({ _id: existing._id, account: list.account });
    if (deletedCount === 0) return 'repeat';
  }
  const token = randomToken();
  const pending: OptinConfirmationDoc = {
    _id: hashKey(token), // like keys and sessions: a leaked store holds no working link
    ...key,
    firstName: request.firstName,
    lastName: request.lastName,
    interests: request.interests,
    ...(request.redirect ? { redirect: request.redirect } : {}),
    createdAt: now,
    expiresAt: new Date(now.getTime() + CONFIRMATION_HOURS * 3_600_000),
  };
  try {
    await store.optinConfirmations.insertOne(pending);
  } catch (error) {
    if (isDuplicateKey(error)) return 'repeat'; // a simultaneous request for the same address and list won
    throw error;
  }
  try {
    const body = confirmationMail(deps.settings, list, request.email, token, CONFIRMATION_HOURS);
    // The visitor asked for this mail: it goes out even to an address that unsubscribed before.
    await acceptSendRequest(deps, { account: list.account, source: 'http', body, purpose: 'optin-confirmation' });
  } catch (error) {
    await store.optinConfirmations.deleteOne({ _id: pending._id, account: list.account }).catch(() => undefined);
    throw error;
  }
  return 'sent';
}
