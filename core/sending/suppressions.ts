// Who gets no transactional mail: the account's suppression list (a relay's or a DSN's hard
// bounce, an ARF complaint, an unsubscribe link or one-click) and the contacts whose state says so
// (unsubscribed through the API or an import, bounced, complained; a confirmed opt-in makes a
// contact ACTIVE again). A send to such an address is dropped with a `track.mail.dropped` event.
import type { ContactDoc, Store, SuppressionDoc, SuppressionSource } from '../../adapters/store/store';
import { normaliseEmail } from '../accounts/users';

const NO_MAIL: ReadonlySet<ContactDoc['state']> = new Set(['UNSUBSCRIBED', 'BOUNCED', 'COMPLAINED']);

export const idOf = (account: string, email: string) => `${account}:${normaliseEmail(email)}`;

/** Puts the address on the list (kept with its first reason when it is there already); true when it was not there. */
export async function suppress(
  store: Store, account: string, email: string, reason: SuppressionDoc['reason'], source?: SuppressionSource,
): Promise<boolean> {
  return (await suppressMany(store, [{ account, email, reason }], source)) > 0;
}

/** Suppresses each address (kept as it is when already listed): one write for all. Answers how many were new. */
export async function suppressMany(
  store: Store, entries: Array<{ account: string; email: string; reason: SuppressionDoc['reason'] }>, source?: SuppressionSource,
): Promise<number> {
  const created = new Date();
  const upserts = entries.map(({ account, email, reason }) => {
    const doc: SuppressionDoc = { _id: idOf(account, email), account, email: normaliseEmail(email), reason, created, ...(source ? { source } : {}) };
    return { filter: { _id: doc._id, account }, update: { $setOnInsert: doc }, upsert: true };
  });
  if (upserts.length === 0) return 0;
  if (upserts.length === 1) return (await store.suppressions.updateOne(upserts[0].filter, upserts[0].update, { upsert: true })).upsertedCount;
  return (await store.suppressions.bulkWrite(upserts.map((updateOne) => ({ updateOne })), { ordered: false })).upsertedCount;
}

/** Which of the addresses get no mail (lowercase): two queries, each answered by a unique index. */
export async function suppressedAmong(store: Store, account: string, emails: string[]): Promise<Set<string>> {
  const wanted = [...new Set(emails.map(normaliseEmail))];
  if (wanted.length === 0) return new Set();
  const [listed, contacts] = await Promise.all([
    listedAmong(store, account, wanted),
    store.contacts.find({ account, email: { $in: wanted } }).project<{ email: string; state: ContactDoc['state'] }>({ email: 1, state: 1 }).toArray(),
  ]);
  return new Set([...listed, ...contacts.filter((c) => NO_MAIL.has(c.state)).map((c) => c.email)]);
}

/** Which of the addresses are on the suppression list (lowercase), for callers that know the contacts' states already. */
export async function onSuppressionList(store: Store, account: string, emails: string[]): Promise<Set<string>> {
  const wanted = [...new Set(emails.map(normaliseEmail))];
  return new Set(wanted.length === 0 ? [] : await listedAmong(store, account, wanted));
}

async function listedAmong(store: Store, account: string, normalised: string[]): Promise<string[]> {
  const listed = await store.suppressions.find({ _id: { $in: normalised.map((email) => `${account}:${email}`) }, account }).project<{ email: string }>({ email: 1 }).toArray();
  return listed.map((s) => s.email);
}
