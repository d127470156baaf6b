// The spec's cap: at most 250 requests per second to one URL, across every worker process. The
// count lives in the store, not in memory: one document per URL and 100 ms bucket, incremented
// atomically by whoever wants to send. A bucket grants at most 20 requests, and a request is
// only sent during the bucket that granted it (a grant that arrives after its bucket ended is
// given up), so any one-second window of sending times touches at most 11 buckets: at most 220
// requests, whatever the window's alignment. The 30 left to the 250 absorb transit jitter: a
// request that takes up to 100 ms longer than its neighbours to reach the receiver still keeps
// any one-second window at the receiver at or under 240. Sustained, that is 200 requests per
// second per URL. Workers' clocks are assumed to agree to well under 100 ms (NTP).
//
// Endpoints share the count when their URLs are the same once normalised (scheme and host in
// lower case, default port dropped, no fragment), whichever account they belong to.
import { createHash } from 'node:crypto';
import { isDuplicateKey, type Store } from '../../adapters/store/store';

export const BUCKET_MS = 100;
export const REQUESTS_PER_BUCKET = 20;
/** Bucket documents outlive their bucket by this much (then the sweeper, or a TTL index, removes them). */
const BUCKET_KEEP_MS = 60_000;

/** The limiter's key of a URL: a hash of its normalised form (the URL itself may carry credentials). */
export function rateKey(url: string): string {
  const normalised = new URL(url);
  normalised.hash = '';
  return createHash('sha256').update(normalised.href).digest('hex').slice(0, 32);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until requests to the URL may be sent and returns how many (1 to `wanted`); the caller
 * sends them at once. Returns 0 only when `stopped()` says to give up waiting.
 */
export async function acquireRequests(store: Store, url: string, wanted: number, stopped: () => boolean = () => false): Promise<number> {
  const key = rateKey(url);
  while (!stopped()) {
    const bucket = Math.floor(Date.now() / BUCKET_MS);
    const bucketEnd = (bucket + 1) * BUCKET_MS;
    let count: number;
    try {
      const doc = await store.webhookRate.findOneAndUpdate(
        { _id: `${key}:${bucket}` },
        { $inc: { n: wanted }, $setOnInsert: { expiresAt: new Date(bucketEnd + BUCKET_KEEP_MS) } },
        { upsert: true, returnDocument: 'after' },
      );
      count = doc!.n;
    } catch (error) {
      if (isDuplicateKey(error)) continue; // two first upserts of one bucket raced: ask again
      throw error;
    }
    // Slots beyond the cap were counted anyway: that only holds others back within this bucket.
    const granted = Math.max(0, Math.min(wanted, REQUESTS_PER_BUCKET - (count - wanted)));
    if (granted > 0 && Date.now() < bucketEnd) return granted;
    await sleep(Math.max(1, bucketEnd - Date.now()) + Math.random() * 10);
  }
  return 0;
}

/** Removes bucket documents past their keep time (the embedded store applies no TTL index). */
export async function removeOldBuckets(store: Store, now = new Date()): Promise<number> {
  return (await store.webhookRate.deleteMany({ expiresAt: { $lt: now } })).deletedCount;
}
