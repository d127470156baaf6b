// The delivery guarantee under a crash: a worker process SIGKILLed in the middle of a
// 1000-recipient request, or of a stream of single sends, and a new one started at once. Every recipient gets the message,
// duplicates are at most the messages in flight at the kill, each with the Message-ID of the first
// copy (the one in the ledger), and the new worker resumes the sending (once the activity's
// heartbeat timeout, 10 s, declares the killed one lost). How soon it resumes is printed, not
// asserted: a busy machine moves it, and the behaviour is what counts. The API runs in
// this process; the worker is `node dist/worker.js` (built by npm test), on the run's workflow bundle.
import { SEND_CONCURRENCY } from '../../core/sending/message-loop';
import { DRAIN_TUNING } from '../../core/transactional/drain';
import { createAccount } from '../../core/accounts/accounts';
import { newId } from '../../core/shared/ids';
import { startKillableStack, type KillableStack } from '../support/killable-worker';
import { ledgerCount, ledgerRows } from '../support/ledger';

const RECIPIENTS = 1000;
let stack: KillableStack;
let sink: KillableStack['sink'];
let services: KillableStack['services'];
const startWorker = () => stack.startWorker();

beforeAll(async () => {
  stack = await startKillableStack('herald_kill');
  ({ sink, services } = stack);
}, 60000);

afterAll(async () => {
  await stack?.stop();
});

/** Waits until `done`, calling `refresh` (if given) before each look. */
async function until(what: string, done: () => boolean, timeoutMs: number, refresh?: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await refresh?.();
    if (done()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('loses nothing, duplicates at most what was in flight, and resumes on a new worker when the worker is killed mid-request', async () => {
  const account = await createAccount(services.store, `kill${newId().slice(0, 6).toLowerCase().replace(/[^a-z0-9]/g, '')}`);
  const first = startWorker();
  const emails = Array.from({ length: RECIPIENTS }, (_, i) => `r${i}@example.net`);
  const response = await fetch(`${stack.apiUrl}/v1/mail/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.transactionalKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      from: { email: 'shop@example.com' }, subject: 'Your order ${n}', content: { html: '<p>Order ${n}</p>', text: 'Order ${n}' },
      recipients: emails.map((email, n) => ({ to: { email }, substitutions: { n } })),
    }),
  });
  expect(response.status).toBe(202);

  await until('a third of the messages', () => sink.received.length >= RECIPIENTS / 3, 90000);
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  const atKill = sink.received.length;
  expect(atKill).toBeLessThan(RECIPIENTS); // the kill landed mid-request

  const restartedAt = Date.now();
  startWorker();
  await until('sending to resume', () => sink.received.length > atKill, 60000);
  const resumedAfterMs = Date.now() - restartedAt;
  const delivered = new Set<string>();
  await until('every recipient', () => {
    for (const mail of sink.received) delivered.add(mail.rcptTo[0]);
    return delivered.size === RECIPIENTS;
  }, 120000);

  // Every recipient got the message; the duplicates are at most the messages in flight.
  const copies = new Map<string, string[]>();
  for (const mail of sink.received) copies.set(mail.rcptTo[0], [...(copies.get(mail.rcptTo[0]) ?? []), mail.parsed.messageId!]);
  expect(copies.size).toBe(RECIPIENTS);
  const duplicated = [...copies.entries()].filter(([, ids]) => ids.length > 1);
  expect(duplicated.length).toBeLessThanOrEqual(SEND_CONCURRENCY);
  expect(duplicated.every(([, ids]) => ids.length === 2)).toBe(true);

  // One ledger row per recipient, sent, with the Message-ID of every copy; one sent event each.
  // (The sink records a message before it acknowledges it: the last rows land just after.)
  let rowCount = 0;
  await until('every ledger row', () => rowCount === RECIPIENTS, 30000, async () => {
    rowCount = await ledgerCount(services.store, { account: account.account });
  });
  const rows = await ledgerRows(services.store, { account: account.account });
  expect(rows.length).toBe(RECIPIENTS);
  expect(rows.every((row) => row.status === 'sent')).toBe(true);
  for (const row of rows) expect(new Set(copies.get(row.email))).toEqual(new Set([row.messageId]));
  const sentEvents = await services.store.events.find({ account: account.account, track_type: 'track.mail.sent' }).toArray();
  expect(sentEvents.length).toBe(RECIPIENTS);
  expect(new Set(sentEvents.map((e) => e.mail_id)).size).toBe(RECIPIENTS);

  console.log(JSON.stringify({ atKill, duplicates: duplicated.length, resumedAfterMs, total: sink.received.length }));
}, 180000);

it('loses no single send of a stream the worker is killed in the middle of, and duplicates at most what was in flight', async () => {
  // 150 single-recipient requests from 10 clients, one after another each; the worker is killed once
  // a third of them arrived, and the stream goes on meanwhile (the API needs only the store and
  // Temporal). The drain's retry on the new worker takes the queue, killed pages and all.
  const REQUESTS = 150;
  const CLIENTS = 10;
  const account = await createAccount(services.store, `stream${newId().slice(0, 6).toLowerCase().replace(/[^a-z0-9]/g, '')}`);
  const before = sink.received.length;
  const first = startWorker();
  const ofStream = () => sink.received.slice(before).filter((mail) => mail.rcptTo[0].startsWith('s'));
  let next = 0;
  const answers: number[] = [];
  const client = async () => {
    while (next < REQUESTS) {
      const i = next++;
      const response = await fetch(`${stack.apiUrl}/v1/mail/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.transactionalKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: { email: 'shop@example.com' }, subject: `Code ${i}`, content: { text: `Your code is ${i}` }, recipients: [{ to: { email: `s${i}@example.net` } }] }),
      });
      answers[i] = response.status;
      await response.arrayBuffer();
    }
  };
  const stream = Promise.all(Array.from({ length: CLIENTS }, client));
  await until('a third of the stream', () => ofStream().length >= REQUESTS / 3, 90000);
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  const atKill = ofStream().length;
  startWorker();
  await stream;
  expect(answers.filter((status) => status === 202)).toHaveLength(REQUESTS); // every request accepted, the outage included
  expect(atKill).toBeLessThan(REQUESTS);

  const delivered = new Set<string>();
  await until('every request of the stream', () => {
    for (const mail of ofStream()) delivered.add(mail.rcptTo[0]);
    return delivered.size === REQUESTS;
  }, 120000);
  const copies = new Map<string, string[]>();
  for (const mail of ofStream()) copies.set(mail.rcptTo[0], [...(copies.get(mail.rcptTo[0]) ?? []), mail.parsed.messageId!]);
  const duplicated = [...copies.entries()].filter(([, ids]) => ids.length > 1);
  // At most the messages in flight: each page of the drain sends SEND_CONCURRENCY at a time.
  expect(duplicated.length).toBeLessThanOrEqual(DRAIN_TUNING.pagesInFlight * SEND_CONCURRENCY);
  expect(duplicated.every(([, ids]) => ids.length === 2)).toBe(true);

  // One ledger row per request with the Message-ID of every copy; the queue empty.
  let rowCount = 0;
  await until('every ledger row', () => rowCount === REQUESTS, 30000, async () => {
    rowCount = await ledgerCount(services.store, { account: account.account });
  });
  const rows = await ledgerRows(services.store, { account: account.account });
  expect(rows.every((row) => row.status === 'sent')).toBe(true);
  for (const row of rows) expect(new Set(copies.get(row.email))).toEqual(new Set([row.messageId]));
  expect(await services.store.sendQueue.countDocuments({ account: account.account })).toBe(0);
  console.log(JSON.stringify({ stream: REQUESTS, atKill, duplicates: duplicated.length, total: ofStream().length }));
}, 180000);
