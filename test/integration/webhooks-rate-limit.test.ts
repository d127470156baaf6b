// The 250 requests/s cap per URL, at a real receiver: with one event per request (a tuning
// setting) and two endpoints of two accounts on the same URL, 1,500 events would go out
// far faster than 250 requests/s; the receiver never sees more than 250 in any one-second window
// (sliding, not aligned), and every event still arrives.
import type { NewAccount } from '../../core/accounts/accounts';
import { rateKey, REQUESTS_PER_BUCKET } from '../../core/webhooks/rate-limit';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { storeSyntheticEvents } from '../support/webhook-events';
import { maxInAnyWindow, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

let herald: TestHerald;
let receiver: WebhookReceiver;
let accounts: NewAccount[];

// 1,500 requests: six seconds and more at the cap, dozens of its buckets asked beyond it.
const EVENTS_PER_ACCOUNT = 750;

beforeAll(async () => {
  [herald, receiver] = await Promise.all([
    startTestHerald({ webhookTuning: { maxEventsPerRequest: 1, concurrency: 8 } }),
    startWebhookReceiver(),
  ]);
  accounts = await Promise.all([herald.newAccount(), herald.newAccount()]);
});
afterAll(async () => {
  await herald?.stop();
  await receiver?.close();
});

it('never lets more than 250 requests reach one URL in any one-second window, across endpoints and accounts', async () => {
  for (const account of accounts) {
    const created = await callHerald(herald.baseUrl, 'POST', `/v2/${account.account}/webhooks`, {
      headers: { authorization: `Bearer ${account.apiKey}` }, json: { url: receiver.url },
    });
    expect(created.status).toBe(201);
  }
  // Stored at once, they become readable at once (after the settle window): the whole load is there from the start.
  const trackIds = (await Promise.all(accounts.map((a) => storeSyntheticEvents(herald.services.store, a.account, EVENTS_PER_ACCOUNT)))).flat();
  const total = trackIds.length;
  await receiver.waitFor(`${total} events`, () => new Set(receiver.events().map((e) => e.track_id)).size >= total, 180_000);

  const times = receiver.requests.map((r) => r.at);
  const busiest = maxInAnyWindow(times, 1000);
  const span = (Math.max(...times) - Math.min(...times)) / 1000;
  // Demand beyond the cap: buckets were asked for more than they granted (the load would have exceeded it).
  const buckets = await herald.services.store.webhookRate.find({ _id: { $regex: `^${rateKey(receiver.url)}:` } }).toArray();
  const overAsked = buckets.filter((b) => b.n > REQUESTS_PER_BUCKET).length;
  process.stderr.write(`webhook rate limit: ${receiver.requests.length} requests in ${span.toFixed(1)} s, busiest sliding second ${busiest}, ${overAsked}/${buckets.length} buckets asked beyond the cap\n`);
  expect(busiest).toBeLessThanOrEqual(250);
  expect(receiver.requests.every((r) => r.events.length === 1)).toBe(true);
  expect(new Set(receiver.events().map((e) => e.track_id))).toEqual(new Set(trackIds));
}, 240_000);
