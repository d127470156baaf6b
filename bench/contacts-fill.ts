import type { ContactDoc, Store } from '../adapters/store/store';

/**
 * Fills `account` with contacts `from`..`to`-1 straight through the store (insertMany of 1000):
 * person<i>@example.com (one in ten @example.org), one in seven UNSUBSCRIBED, on list 2 when i is a
 * multiple of 3 else list 1; ids follow the account's counter, which is moved past them.
 */
export async function fillContacts(store: Store, account: string, from: number, to: number): Promise<void> {
  const now = new Date();
  const firstId = ((await store.counters.findOne({ _id: `${account}:contacts` }))?.seq ?? 0) + 1;
  for (let start = from; start < to; start += 1000) {
    const batch: ContactDoc[] = [];
    for (let i = start; i < Math.min(start + 1000, to); i++) {
      batch.push({
        _id: `${account}:${firstId + i}`, account, id: firstId + i, email: `person${i}@${i % 10 === 0 ? 'example.org' : 'example.com'}`,
        firstName: `P${i}`, lastName: '', gender: '', language: '', preferredFormat: 'HTML', source: 'IMPORTED_CSV',
        state: i % 7 === 0 ? 'UNSUBSCRIBED' : 'ACTIVE', quality: (i % 100) / 100, lists: [i % 3 === 0 ? 2 : 1], interests: [],
        customFields: {}, created: now, lastModified: now, lastMailed: null, lastAction: null, inactivated: null,
      });
    }
    await store.contacts.insertMany(batch, { ordered: false });
  }
  await store.counters.updateOne({ _id: `${account}:contacts` }, { $set: { seq: firstId + to } }, { upsert: true });
}
