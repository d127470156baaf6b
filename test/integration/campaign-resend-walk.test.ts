// How a resend round finds whom to send to (core/campaigns/resend.ts), against the suite's store:
// ledger rows written as the send engine writes them (a mail_id per recipient and round), then the
// walk in strides: the recipients whose latest message failed, in seq order, each once, however
// the walk is cut into calls, and not those already sent in this round.
import { connectStore, type EventDoc, type LedgerFields, type Store } from '../../adapters/store/store';
import { insertLedgerRows } from '../support/ledger';
import { campaignMailId } from '../../core/campaigns/model';
import { nextResendCandidates, pendingOfRound, RESEND_SCAN_PER_CALL } from '../../core/campaigns/resend';
import { newId } from '../../core/shared/ids';
import { dropDatabase, suiteMongodbUri } from '../support/herald';

const database = `herald_resend_${newId().slice(0, 8)}`;
const account = 'walker';
const campaignId = 7;
const TOTAL = 2_500;
let store: Store;

beforeAll(async () => {
  store = await connectStore(suiteMongodbUri(), database);
});
afterAll(async () => {
  await store.close();
  await dropDatabase(database);
});

/** Ledger rows of `round` for the seqs, with their status. */
async function ledger(round: number, statuses: Array<[number, LedgerFields['status']]>) {
  await insertLedgerRows(store, statuses.map(([seq, status]) => ({
    _id: campaignMailId(account, campaignId, seq, round), account, requestId: `r${round}`, email: `c${seq}@example.net`, messageId: `<${seq}.${round}@x>`,
    status, relayResponse: '', sentAt: new Date(), event: { track_id: `t${seq}.${round}` } as EventDoc,
  })));
}

/** Every candidate of the round, walking with calls of `want`. */
async function walk(round: number, want: number): Promise<{ seqs: number[]; calls: number }> {
  const seqs: number[] = [];
  let calls = 0;
  for (let from = 0; from < TOTAL; calls += 1) {
    const found = await nextResendCandidates(store, { account, campaignId, round, from, total: TOTAL, want });
    expect(found.seqs.length).toBeLessThanOrEqual(want);
    expect(found.next).toBeGreaterThan(from);
    seqs.push(...found.seqs);
    from = found.next;
  }
  return { seqs, calls };
}

it('finds the recipients whose latest message failed, each once in seq order, however the walk is cut; not those this round sent', async () => {
  // The launch: everyone sent but seqs 3, 1200, 1201 and 2499 (failed) and 5 (dropped); 2000 has no row (the launch was cut short there).
  await ledger(0, Array.from({ length: TOTAL }, (_, seq): [number, LedgerFields['status']] => [seq, [3, 1200, 1201, 2499].includes(seq) ? 'failed' : seq === 5 ? 'dropped' : 'sent'])
    .filter(([seq]) => seq !== 2000));
  expect(await walk(1, 500)).toEqual({ seqs: [3, 1200, 1201, 2499], calls: 1 });
  expect((await walk(1, 1)).seqs).toEqual([3, 1200, 1201, 2499]);

  // Round 1 sent 3 (taken) and 1200 (failed again) and did not reach 1201 nor 2499.
  await ledger(1, [[3, 'sent'], [1200, 'failed']]);
  // Round 1 itself, resumed: what it has not sent yet.
  expect((await walk(1, 2)).seqs).toEqual([1201, 2499]);
  // Round 2: 1200 by its round-1 message, 1201 and 2499 by their launch's.
  expect((await walk(2, 2)).seqs).toEqual([1200, 1201, 2499]);
  const { pending, own } = await pendingOfRound(store, account, campaignId, 2, [{ seq: 3 }, { seq: 1200 }, { seq: 4 }]);
  expect(pending).toEqual([{ seq: 1200 }]);
  expect(own).toEqual([campaignMailId(account, campaignId, 1200, 2)]);
});

it('reads at most RESEND_SCAN_PER_CALL recipients a call', async () => {
  const found = await nextResendCandidates(store, { account: 'nobody', campaignId, round: 1, from: 0, total: 10 * RESEND_SCAN_PER_CALL, want: 500 });
  expect(found).toEqual({ seqs: [], next: RESEND_SCAN_PER_CALL });
});

it('skips the walk when every earlier round finished with nothing failed, and walks when one did not', async () => {
  const shortcut = 'shortcut';
  const id = 8;
  await store.campaigns.insertOne({ _id: `${shortcut}:${id}`, account: shortcut, id, launch: { taskId: 40, workflowId: 'w', paused: false, rounds: 1 } } as never);
  const task = (taskId: number, type: string, round: number | undefined, failed: number, state = 'FINISHED') => ({
    _id: `${shortcut}:${taskId}`, account: shortcut, id: taskId, type, state, parameters: { campaignId: id, ...(round ? { round } : {}) }, result: { recipients: TOTAL, sent: TOTAL - failed, failed, dropped: 0 },
  });
  await store.tasks.insertMany([task(40, 'CAMPAIGN_LAUNCH', undefined, 0)] as never[]);
  // The ledger says seq 7 failed, the launch's task counted none: only the count is read.
  await insertLedgerRows(store, [{
    _id: campaignMailId(shortcut, id, 7, 0), account: shortcut, requestId: 'r0', email: 'c7@example.net', messageId: '<7@x>',
    status: 'failed', relayResponse: '', sentAt: new Date(), event: { track_id: `shortcut-t7` } as EventDoc,
  }]);
  const round = (r: number) => nextResendCandidates(store, { account: shortcut, campaignId: id, round: r, from: 0, total: TOTAL, want: 500 });
  expect(await round(1)).toEqual({ seqs: [], next: TOTAL });
  // Round 2, with round 1 cancelled: the walk reads the ledger (seq 7's launch message failed).
  await store.tasks.insertOne(task(41, 'CAMPAIGN_RESEND', 1, 0, 'CANCELLED') as never);
  expect((await round(2)).seqs).toEqual([7]);
  // Round 1 with a launch that counted a failure: walked.
  await store.tasks.updateOne({ _id: `${shortcut}:40` }, { $set: { 'result.failed': 1 } });
  expect((await round(1)).seqs).toEqual([7]);
});
