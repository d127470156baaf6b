// Reading an account's contacts page by page of ids on the real store (core/contacts/id-pages.ts):
// every matching contact once, in id order, none of another account, the progress in ids walked,
// and a contact created after the read started left out.
import { connectStore, type Store } from '../../adapters/store/store';
import { contactIdPages } from '../../core/contacts/id-pages';
import { newId } from '../../core/shared/ids';
import { addContacts } from '../support/campaigns';

let store: Store;

beforeAll(async () => {
  store = await connectStore(process.env.MONGODB_URI!, `herald_test_${newId().slice(0, 10)}`);
  await addContacts(store, 'pages', Array.from({ length: 250 }, (_, i) => ({ email: `p${i}@example.net`, lists: [i % 3 === 0 ? 1 : 2] })));
  await addContacts(store, 'other', Array.from({ length: 40 }, (_, i) => ({ email: `o${i}@example.net`, lists: [1] })));
});
afterAll(async () => {
  await store.db.dropDatabase();
  await store.close();
});

it('reads the matching contacts once each, in id order, page by page of ids', async () => {
  const pages = [];
  for await (const page of contactIdPages<{ id: number; email: string }>(store, 'pages', { lists: 1 }, { _id: 0, id: 1, email: 1 }, 100)) {
    pages.push(page);
    if (pages.length === 1) await addContacts(store, 'pages', [{ email: 'late@example.net', lists: [1] }]);
  }
  expect(pages.map((page) => [page.walked, page.ids])).toEqual([[100, 250], [200, 250], [250, 250]]);
  const ids = pages.flatMap((page) => page.contacts.map((contact) => contact.id));
  expect(ids).toEqual(Array.from({ length: 250 }, (_, i) => i + 1).filter((id) => (id - 1) % 3 === 0));
  expect(pages[0].contacts[0]).toEqual({ id: 1, email: 'p0@example.net' });
});

it('reads nothing of an account without contacts', async () => {
  const pages = [];
  for await (const page of contactIdPages(store, 'empty', {})) pages.push(page);
  expect(pages).toEqual([]);
});
