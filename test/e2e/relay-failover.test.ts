// Several relays on the whole stack (HERALD_RELAYS_FILE): campaigns go to the `bulk` relay and the
// rest to `main`, as the file says; the bulk relay crashes in the middle of a campaign, and its
// traffic moves to `main`, which takes anything: every recipient gets the campaign, at most the
// messages in flight at the crash twice, each copy with its one Message-ID. The ledger says which
// relay took each message's answer only by its row; the sinks count what each relay got.
import type { NewAccount } from '../../core/accounts/accounts';
import type { Store } from '../../adapters/store/store';
import { registry } from '../../adapters/metrics/registry';
import { SEND_CONCURRENCY } from '../../core/sending/message-loop';
import { addContacts, addLists, campaignApi, draftCampaign, waitForCampaign } from '../support/campaigns';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { startSmtpSink } from '../support/smtp-sink';

const CONTACTS = 400;
let herald: TestHerald;
let store: Store;
let acme: NewAccount;
let bulk: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  bulk = await startSmtpSink({ delayMs: 5 }); // a little slow, so the crash finds it mid-campaign
  herald = await startTestHerald({
    campaignTuning: { pageSize: 50 },
    relaysFile: (sinkUrl) => ({ relays: [{ name: 'bulk', url: bulk.url, streams: ['campaign'] }, { name: 'main', url: sinkUrl }] }),
  });
  store = herald.services.store;
  acme = await herald.newAccount();
  await addLists(store, acme.account, [1]);
  await addContacts(store, acme.account, Array.from({ length: CONTACTS }, (_, i) => ({ email: `c${i}@example.net`, lists: [1] })));
}, 60_000);
afterAll(async () => {
  await herald?.stop();
  await bulk?.kill();
});

it('routes single sends to main and campaigns to bulk, as the relays file says', async () => {
  const answer = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: { authorization: `Bearer ${acme.transactionalKey}` },
    json: { from: { email: 'shop@example.com' }, subject: 'Receipt', content: { text: 'Thanks' }, recipients: [{ to: { email: 'buyer@example.net' } }] },
  });
  expect(answer.status).toBe(202);
  await herald.sink.waitFor(1);
  expect(herald.sink.received.map((mail) => mail.rcptTo[0])).toEqual(['buyer@example.net']);
  expect(bulk.received).toEqual([]);
});

it('moves a campaign to the next relay when its relay crashes midway: every recipient, at most those in flight twice', async () => {
  const api = campaignApi(herald.baseUrl, acme.account, acme.apiKey);
  const draft = await draftCampaign(store, acme.account, { name: 'Failover', include: { lists: [1] } });
  await api.launch(draft, null);
  await bulk.waitFor(60, 60_000);
  await bulk.kill();
  const atCrash = bulk.received.length;
  await waitForCampaign(store, draft, ['SENT'], 120_000);

  const recipients = (box: typeof bulk) => box.received.map((mail) => mail.rcptTo[0]).filter((to) => to.startsWith('c'));
  const all = [...recipients(bulk), ...recipients(herald.sink)];
  expect(new Set(all).size).toBe(CONTACTS);
  expect(recipients(herald.sink).length).toBeGreaterThan(0); // main took over
  // A copy sent twice is one the crash caught in flight (at most the sends of a page at once), with the same Message-ID.
  expect(all.length - CONTACTS).toBeLessThanOrEqual(SEND_CONCURRENCY);
  const idsOf = new Map<string, Set<string>>();
  for (const mail of [...bulk.received, ...herald.sink.received]) {
    const to = mail.rcptTo[0];
    if (!idsOf.has(to)) idsOf.set(to, new Set());
    idsOf.get(to)!.add(mail.parsed.messageId!);
  }
  expect([...idsOf.values()].every((ids) => ids.size === 1)).toBe(true);
  expect(atCrash).toBeLessThan(CONTACTS);

  const exposition = await registry.metrics();
  expect(exposition).toMatch(/herald_relay_up\{relay="bulk"\} 0/);
  expect(exposition).toMatch(/herald_relay_messages_total\{relay="main",outcome="sent"\} [1-9]/);
  expect(exposition).not.toContain(bulk.url.replace('smtp://', '')); // names, never addresses
}, 180_000);
