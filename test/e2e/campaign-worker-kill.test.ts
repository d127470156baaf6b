// The delivery guarantee of a campaign under a crash: the worker process SIGKILLed in the middle
// of a 1000-contact campaign, and a new one started at once. Every contact gets the message,
// duplicates are at most the messages in flight at the kill (one page at a time, SEND_CONCURRENCY
// messages of it at once), each with the Message-ID of its ledger row, and the campaign ends SENT
// with its task FINISHED. The API runs in this process (the campaign is launched over HTTP); the
// worker is `node dist/worker.js` (built by npm test).
import { SEND_CONCURRENCY } from '../../core/sending/message-loop';
import { createAccount } from '../../core/accounts/accounts';
import { campaignRequestId } from '../../core/campaigns/model';
import { newId } from '../../core/shared/ids';
import { addContacts, addLists, campaignApi, draftCampaign, waitForCampaign, waitForTask } from '../support/campaigns';
import { startKillableStack, type KillableStack } from '../support/killable-worker';
import { waitUntil } from '../support/wait';
import { ledgerRows } from '../support/ledger';

const CONTACTS = 1000;
let stack: KillableStack;
let sink: KillableStack['sink'];
let services: KillableStack['services'];
const startWorker = () => stack.startWorker();

beforeAll(async () => {
  stack = await startKillableStack('herald_ckill');
  ({ sink, services } = stack);
}, 60000);

afterAll(async () => {
  await stack?.stop();
});

it('sends every contact the campaign, duplicates at most what was in flight, when the worker is killed mid-campaign', async () => {
  const { store } = services;
  const { account, apiKey } = await createAccount(store, `ckill${newId().slice(0, 6).toLowerCase().replace(/[^a-z0-9]/g, '')}`);
  await addLists(store, account, [1]);
  const emails = Array.from({ length: CONTACTS }, (_, i) => `c${i}@example.net`);
  await addContacts(store, account, emails.map((email, i) => ({ email, firstName: `C${i}`, lists: [1] })));
  const campaign = await draftCampaign(store, account, { name: 'Kill', include: { lists: [1] } });

  const first = startWorker();
  const task = await campaignApi(stack.apiUrl, account, apiKey).launch(campaign);
  await waitUntil('a third of the messages', () => sink.received.length >= CONTACTS / 3, 90000, 25);
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  const atKill = sink.received.length;
  expect(atKill).toBeLessThan(CONTACTS); // the kill landed mid-campaign

  const restartedAt = Date.now();
  startWorker();
  await waitUntil('sending to resume', () => sink.received.length > atKill, 60000, 25);
  const resumedAfterMs = Date.now() - restartedAt;
  const sent = await waitForCampaign(store, campaign, ['SENT'], 120000);
  expect(sent.recipients).toBe(CONTACTS);
  const finished = await waitForTask(store, account, task.id, ['FINISHED'], 30000);
  expect(finished.result).toMatchObject({ recipients: CONTACTS, sent: CONTACTS, failed: 0, dropped: 0 });

  // Every contact got the message; the duplicates are at most the messages in flight, each a copy of the same message.
  await waitUntil('every contact', () => new Set(sink.received.map((mail) => mail.rcptTo[0])).size === CONTACTS, 30000);
  const copies = new Map<string, string[]>();
  for (const mail of sink.received) copies.set(mail.rcptTo[0], [...(copies.get(mail.rcptTo[0]) ?? []), mail.parsed.messageId!]);
  expect([...copies.keys()].sort()).toEqual([...emails].sort());
  const duplicated = [...copies.entries()].filter(([, ids]) => ids.length > 1);
  expect(duplicated.length).toBeLessThanOrEqual(SEND_CONCURRENCY);
  expect(duplicated.every(([, ids]) => ids.length === 2 && ids[0] === ids[1])).toBe(true);

  // One ledger row per contact, sent, with the Message-ID of every copy; one sent event each.
  const rows = await ledgerRows(store, { account, requestId: campaignRequestId(campaign.id) });
  expect(rows).toHaveLength(CONTACTS);
  expect(rows.every((row) => row.status === 'sent')).toBe(true);
  for (const row of rows) expect(new Set(copies.get(row.email))).toEqual(new Set([row.messageId]));
  const sentEvents = await store.events.countDocuments({ account, track_type: 'track.mail.sent', mail_type: 'campaign' });
  expect(sentEvents).toBe(CONTACTS);

  console.log(JSON.stringify({ contacts: CONTACTS, atKill, duplicates: duplicated.length, resumedAfterMs, total: sink.received.length }));
}, 240000);
