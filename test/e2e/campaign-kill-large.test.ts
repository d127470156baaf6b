// The delivery guarantee past a campaign's first pages: a campaign of 5,000 contacts (10 pages,
// the kill in the third or later; HERALD_KILL_CONTACTS=100000 runs the 100,000 of issue 29, ~130 s
// of CPU, too much for the suite on two cores) whose worker process is SIGKILLed in the middle of a page
// (pages of 500, SEND_CONCURRENCY messages of a page in flight), a new worker started at once.
// Every contact gets the message, the duplicates are at most the messages in flight at the kill,
// each a copy with the Message-ID of its ledger row, and the campaign ends SENT with all its
// recipients. The store is one of its own on an H2 file, as npm start runs it (the suite's memory
// store does not hold 100k contacts with their ledger rows and events); the sink acknowledges at
// once and keeps only envelopes and Message-IDs (test/support/envelope-sink.ts); the worker is
// `node dist/worker.js`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedStore, type EmbeddedStore } from '../../infra/store';
import { createAccount } from '../../core/accounts/accounts';
import { campaignRequestId } from '../../core/campaigns/model';
import { SNAPSHOT_PART_SIZE } from '../../core/campaigns/snapshot';
import { SEND_CONCURRENCY } from '../../core/sending/message-loop';
import { newId } from '../../core/shared/ids';
import { addContacts, addLists, campaignApi, draftCampaign, waitForCampaign } from '../support/campaigns';
import { startEnvelopeSink } from '../support/envelope-sink';
import { startKillableStack, type KillableStack } from '../support/killable-worker';
import { waitUntil } from '../support/wait';
import { ledgerRows } from '../support/ledger';

const CONTACTS = Number(process.env.HERALD_KILL_CONTACTS ?? 5_000);
let storeProcess: EmbeddedStore;
let stack: KillableStack<Awaited<ReturnType<typeof startEnvelopeSink>>>;
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-ckill100k-'));

beforeAll(async () => {
  storeProcess = await startEmbeddedStore({ file: path.join(folder, 'store.h2'), logFile: path.join(folder, 'store.log'), shortLived: true });
  stack = await startKillableStack('herald_ckill100k', { startSink: startEnvelopeSink, mongodbUri: storeProcess.uri });
}, 90000);

afterAll(async () => {
  await stack?.stop();
  await storeProcess?.stop();
  fs.rmSync(folder, { recursive: true, force: true });
});

it(`sends each of ${CONTACTS.toLocaleString('en-US')} contacts the campaign once, but for at most the messages in flight, when the worker is killed mid-page`, async () => {
  const { store } = stack.services;
  const { sink } = stack;
  const { account, apiKey } = await createAccount(store, `ck${newId().slice(0, 6).toLowerCase().replace(/[^a-z0-9]/g, '')}`);
  await addLists(store, account, [1]);
  // Straight into the store (an import's work is not what this tests).
  const emails = (await addContacts(store, account, Array.from({ length: CONTACTS }, (_, i) => ({ email: `k${i}@example.net`, firstName: `K${i}`, lists: [1] }))))
    .map((contact) => contact.email);
  const campaign = await draftCampaign(store, account, { name: 'Kill100k', include: { lists: [1] } });

  const first = stack.startWorker();
  await campaignApi(stack.apiUrl, account, apiKey).launch(campaign);
  // Well into the campaign, and in the middle of a page (the sink's count stands for the page's position).
  const midPage = () => {
    const n = sink.received.length;
    return n >= CONTACTS / 4 && n % SNAPSHOT_PART_SIZE >= SNAPSHOT_PART_SIZE / 4 && n % SNAPSHOT_PART_SIZE <= (SNAPSHOT_PART_SIZE * 3) / 4;
  };
  await waitUntil('a quarter of the messages, mid-page', midPage, 300_000, 2);
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  const atKill = sink.received.length;
  expect(atKill).toBeLessThan(CONTACTS);

  stack.startWorker();
  const sent = await waitForCampaign(store, campaign, ['SENT'], 400_000);
  expect(sent.recipients).toBe(CONTACTS);

  // Every contact got the message; the duplicates are at most the messages in flight, each a copy of the same message.
  await waitUntil('every contact', () => sink.received.length >= CONTACTS, 30_000);
  const copies = new Map<string, Array<string | undefined>>();
  for (const mail of sink.received) copies.set(mail.rcptTo[0], [...(copies.get(mail.rcptTo[0]) ?? []), mail.messageId]);
  expect(copies.size).toBe(CONTACTS);
  expect(emails.every((email) => copies.has(email))).toBe(true);
  const duplicated = [...copies.entries()].filter(([, ids]) => ids.length > 1);
  expect(duplicated.length).toBeLessThanOrEqual(SEND_CONCURRENCY);
  expect(duplicated.every(([, ids]) => ids.length === 2 && ids[0] === ids[1])).toBe(true);

  // One ledger row per contact, sent, with the Message-ID of its copies.
  const rows = await ledgerRows(store, { account, requestId: campaignRequestId(campaign.id) });
  expect(rows).toHaveLength(CONTACTS);
  expect(rows.every((row) => row.status === 'sent')).toBe(true);
  expect(rows.filter((row) => copies.get(row.email)!.some((id) => id !== row.messageId))).toEqual([]);

  console.log(JSON.stringify({ contacts: CONTACTS, atKill, duplicates: duplicated.length, total: sink.received.length }));
}, 600_000);
