// `Idempotency-Key` on a send (HTTP header, or the SMTP message's header): a retry of a request
// the client cannot tell was accepted (a timeout, a dropped connection) starts nothing twice.
// The first request with a key claims it; once accepted, the claim holds its answer for 24 hours
// and a request with the same key gets that answer again. A claim whose acceptance failed is
// released, so the retry is accepted then. Expiry is a condition on read (no TTL index on the
// embedded store): an expired claim is taken over as if it were not there.
import { createHash } from 'node:crypto';
import { errors } from '../shared/errors';
import { isDuplicateKey, type IdempotencyDoc, type Store } from '../../adapters/store/store';

/** What a replayed request is answered: the first one's ids. */
export type AcceptedAnswer = NonNullable<IdempotencyDoc['answer']>;

export const IDEMPOTENCY_HOURS = 24;
/** A key longer than this is refused (Stripe and others take 255). */
export const MAX_KEY_LENGTH = 255;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Claims the key for this request, or gives the answer of the request that claimed it. Throws
 * bad_request for a key used with another body, and service_unavailable while the first
 * request with the key is still being accepted (the client retries).
 */
export async function claimKey(store: Store, account: string, key: string, body: string): Promise<{ replay?: AcceptedAnswer; release: () => Promise<void>; settle: (answer: AcceptedAnswer) => Promise<void> }> {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || /[\r\n]/.test(key)) throw errors.badRequest(`Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`);
  const claim: IdempotencyDoc = { _id: `${account}:${sha256(key)}`, account, fingerprint: sha256(body), created: new Date() };
  const keys = store.idempotencyKeys;
  const handle = {
    release: async () => { await keys.deleteOne({ _id: claim._id, account, created: claim.created, answer: { $exists: false } }); },
    settle: async (answer: AcceptedAnswer) => { await keys.updateOne({ _id: claim._id, account, created: claim.created }, { $set: { answer } }); },
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await keys.insertOne(claim);
      return handle;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const held = await keys.findOne({ _id: claim._id, account });
    if (!held) continue; // released meanwhile: claim it
    if (Date.now() - held.created.getTime() >= IDEMPOTENCY_HOURS * 3600_000) {
      await keys.deleteOne({ _id: held._id, account, created: held.created }); // expired: take it over
      continue;
    }
    if (held.fingerprint !== claim.fingerprint) throw errors.badRequest('This Idempotency-Key was used with another request body in the last 24 hours');
    if (!held.answer) throw errors.unavailable('A request with this Idempotency-Key is still being accepted: retry in a moment');
    return { ...handle, replay: held.answer };
  }
  throw errors.unavailable('The Idempotency-Key is being claimed by another request: retry in a moment');
}
