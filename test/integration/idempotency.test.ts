// Idempotency-Key claims on the real store (core/transactional/idempotency.ts): the first
// request claims the key, its answer is replayed for 24 hours, another body with the key is
// refused, a request still being accepted makes the retry wait, and a released or expired
// claim is taken again.
import { newId } from '../../core/shared/ids';
import { connectStore, type Store } from '../../adapters/store/store';
import { claimKey } from '../../core/transactional/idempotency';

let store: Store;

beforeAll(async () => { store = await connectStore(process.env.MONGODB_URI!, `herald_test_${newId().slice(0, 10)}`); });
afterAll(async () => {
  await store.db.dropDatabase();
  await store.close();
});

const answer = { requestId: 'r1', batchId: 'acme_transactional_r1' };

it('replays the first answer for the same key and body, and refuses the key with another body', async () => {
  const first = await claimKey(store, 'acme', 'order-42', '{"a":1}');
  expect(first.replay).toBeUndefined();
  await expect(claimKey(store, 'acme', 'order-42', '{"a":1}')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' }); // still being accepted
  await first.settle(answer);
  expect((await claimKey(store, 'acme', 'order-42', '{"a":1}')).replay).toEqual(answer);
  await expect(claimKey(store, 'acme', 'order-42', '{"a":2}')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  // Keys are per account.
  expect((await claimKey(store, 'other', 'order-42', '{"a":2}')).replay).toBeUndefined();
  // The key itself is not stored, only its hash.
  expect(JSON.stringify(await store.idempotencyKeys.find({}).toArray())).not.toContain('order-42');
});

it('lets a retry claim the key again when the first acceptance failed and released it', async () => {
  const first = await claimKey(store, 'acme', 'released', 'body');
  await first.release();
  const again = await claimKey(store, 'acme', 'released', 'body');
  expect(again.replay).toBeUndefined();
  await again.settle(answer);
  expect((await claimKey(store, 'acme', 'released', 'body')).replay).toEqual(answer);
});

it('treats a claim older than 24 hours as gone', async () => {
  const first = await claimKey(store, 'acme', 'old', 'body');
  await first.settle(answer);
  await store.idempotencyKeys.updateMany({ account: 'acme' }, { $set: { created: new Date(Date.now() - 25 * 3600_000) } });
  const fresh = await claimKey(store, 'acme', 'old', 'another body');
  expect(fresh.replay).toBeUndefined();
});

it('refuses keys that are empty, too long or carry line breaks', async () => {
  for (const key of ['', 'x'.repeat(256), 'a\r\nb']) {
    await expect(claimKey(store, 'acme', key, 'body')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  }
});
