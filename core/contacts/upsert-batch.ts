// Contact upserts of requests arriving together (adapters/batching/turn-batch.ts) go to the store as one
// `update` command with an upsert statement each, and the contacts as written come back with one
// query per account. A findOneAndUpdate per request cost one round trip each: with the
// reads shared, that write was the API's most frequent store call.
//
// Statements run in order, so two upserts of one new email in a batch create the contact once and
// then update it. Each waits for the command's reply, which the store sends once the writes are
// durable, so an answered request's change is never lost.
import type { UpdateFilter, WriteError } from 'mongodb';
import { isDuplicateKey, type ContactDoc, type Store } from '../../adapters/store/store';
import { refusedStatements } from '../../adapters/store/bulk-writes';
import { TurnBatch, type ItemResult } from '../../adapters/batching/turn-batch';
import { perStore } from '../../adapters/store/per-store';

/** One upsert: the contact with this email in the account, created or updated by `update`. */
export interface ContactUpsert { account: string; email: string; update: UpdateFilter<ContactDoc> }

/**
 * The contact as written. Null when it must be tried again: a simultaneous create of the email
 * in another command won (the unique index refused this one), or the contact was deleted before
 * it could be read back.
 */
export function writeContactUpsert(store: Store, upsert: ContactUpsert): Promise<ContactDoc | null> {
  return batches(store).add(upsert);
}

const batches = perStore((store) => new TurnBatch<ContactUpsert, ContactDoc | null>((upserts) => runUpserts(store, upserts)));

async function runUpserts(store: Store, upserts: ContactUpsert[]): Promise<Array<ItemResult<ContactDoc | null>>> {
  let refused = new Map<number, WriteError>();
  try {
    await store.contacts.bulkWrite(
      upserts.map(({ account, email, update }) => ({ updateOne: { filter: { account, email }, update, upsert: true } })),
      { ordered: false },
    );
  } catch (error) {
    refused = refusedStatements(error); // or throws: the command failed, and none is known written
  }
  const written = await readBack(store, upserts.filter((_, i) => !refused.has(i)));
  return upserts.map((upsert, i) => {
    const writeError = refused.get(i);
    if (!writeError) return { value: written.get(`${upsert.account}\n${upsert.email}`) ?? null };
    return isDuplicateKey(writeError) ? { value: null } : { error: writeError };
  });
}

/** The contacts as they are now, by account and email: one query per account ({account, email} is unique). */
async function readBack(store: Store, upserts: ContactUpsert[]): Promise<Map<string, ContactDoc>> {
  const emails = new Map<string, Set<string>>();
  for (const { account, email } of upserts) emails.set(account, (emails.get(account) ?? new Set()).add(email));
  const found = await Promise.all([...emails].map(([account, wanted]) =>
    store.contacts.find({ account, email: { $in: [...wanted] } }).limit(wanted.size).toArray()));
  return new Map(found.flat().map((contact) => [`${contact.account}\n${contact.email}`, contact]));
}
