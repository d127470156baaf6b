// One-time values of signed requests (Mailgun's token): a request is taken once; the same one
// posted again, even with its valid signature, is refused. A unique _id decides, across every API
// process. The claim is given back when recording the request failed, so the provider's retry of
// it (the same token) is taken. Expiry: a TTL index on MongoDB; the embedded store ignores TTL
// indexes, so claims also sweep the expired ones now and then.
import { insertsPerTurn } from '../../adapters/batching/turn-batch';
import { isDuplicateKey, type Store } from '../../adapters/store/store';
import { errors } from '../shared/errors';

/** One claim in this many also deletes expired nonces (a scan on the embedded store; an index range on MongoDB). */
const SWEEP_EVERY = 200;

/** Claims arriving together (concurrent webhook requests) go out as one insert. */
const nonceInserts = insertsPerTurn((store) => store.feedbackNonces);

export interface NonceClaim { giveBack(): Promise<void> }

/** Claims `<source>:<value>` until `expiresAt`; 401 when it was claimed already. */
export async function claimNonce(store: Store, source: string, value: string, expiresAt: Date): Promise<NonceClaim> {
  const _id = `${source}:${value}`;
  try {
    await nonceInserts(store).add({ _id, expiresAt });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    // An expired claim the TTL has not removed yet: the request is refused for its age before this.
    throw errors.unauthorized(`This ${source} request was taken already (its token is used once): a replayed request is refused`);
  }
  if (Math.random() * SWEEP_EVERY < 1) void store.feedbackNonces.deleteMany({ expiresAt: { $lt: new Date() } }).catch(() => undefined);
  return { giveBack: async () => { await store.feedbackNonces.deleteOne({ _id }); } };
}
