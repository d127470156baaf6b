// When an idle delivery pass reads again (core/webhooks/new-events-watch.ts), on the real store:
// once the events counted at a change have settled, and, for events stored just before a pass
// began, once they settled too (not only at the next full read, 30 s later).
import { newId } from '../../core/shared/ids';
import { connectStore, type Store } from '../../adapters/store/store';
import { NewEventsWatch } from '../../core/webhooks/new-events-watch';
import { storeSyntheticEvents } from '../support/webhook-events';

const SETTLE_MS = 5000;
let store: Store;

beforeAll(async () => {
  store = await connectStore(process.env.MONGODB_URI!, `herald_test_${newId().slice(0, 10)}`);
});
afterAll(async () => {
  await store?.db.dropDatabase().catch(() => undefined);
  await store?.close();
});

it('reads again once events stored while idle have settled', async () => {
  const watch = new NewEventsWatch(store, SETTLE_MS);
  const start = Date.now();
  await watch.reading(start);
  expect(await watch.readDue(start + SETTLE_MS + 1000)).toBe(true); // the first read's own look-again
  await watch.reading(start + SETTLE_MS + 1000);
  const stored = Date.now() + SETTLE_MS + 1000;
  await storeSyntheticEvents(store, 'acme', 3);
  expect(await watch.readDue(stored)).toBe(false); // counted, not settled yet
  expect(await watch.readDue(stored + SETTLE_MS + 999)).toBe(false);
  expect(await watch.readDue(stored + SETTLE_MS + 1000)).toBe(true);
});

it('reads again once the events stored just before a pass began have settled', async () => {
  await storeSyntheticEvents(store, 'acme', 3);
  const watch = new NewEventsWatch(store, SETTLE_MS);
  const start = Date.now();
  await watch.reading(start); // counts them, but too young for this read
  expect(await watch.readDue(start + 1000)).toBe(false);
  expect(await watch.readDue(start + SETTLE_MS + 1000)).toBe(true);
});
