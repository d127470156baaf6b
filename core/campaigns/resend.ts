// Which recipients a resend round sends to. The launch (round 0) sends to every recipient of the
// snapshot; resend round n to those whose latest message, of rounds 0 to n - 1, failed (a hard or
// soft bounce, or given up after deferrals; not a dropped one). The ledger decides: a recipient's
// message of round r has the mail_id campaignMailId(…, seq, r), so no other record is kept.
//
// A round walks the snapshot's seqs in large strides (nextResendCandidates) reading only the ledger,
// and sends pages of the candidates it finds: with nothing failed, a 100,000-recipient round is a
// few reads of 1,000 rows each, not 200 pages.
import type { Store, TaskDoc } from '../../adapters/store/store';
import { readLedger, readLedgerStatuses, type LedgerOutcome } from '../sending/resume';
import { campaignMailIds } from './model';

/** Seqs one call of nextResendCandidates reads at most: a few hundred milliseconds of the store. */
export const RESEND_SCAN_PER_CALL = 20_000;

/**
 * Of `rows` (recipients by seq), those `round` sends to, with their mail_id of the round, and the
 * round's own ledger rows of them (a message already sent by an attempt whose result was lost).
 * Round r's rows are read only for those whose latest message before r failed (only they were sent
 * anything in round r): about one read per recipient whatever the round.
 */
export async function pendingOfRound<T extends { seq: number }>(
  store: Store, account: string, campaignId: number, round: number, rows: T[],
): Promise<{ pending: T[]; own: string[]; read: Map<string, LedgerOutcome> }> {
  let pending = rows;
  for (let r = 0; r < round && pending.length > 0; r += 1) {
    const mailIdOf = campaignMailIds(account, campaignId, r);
    const found = await readLedgerStatuses(store, account, pending.map((row) => mailIdOf(row.seq)));
    // The latest message so far failed (a recipient round r did not reach keeps its earlier one).
    pending = pending.filter((row) => { const latest = found.get(mailIdOf(row.seq)); return latest ? latest === 'failed' : r > 0; });
  }
  const ownOf = campaignMailIds(account, campaignId, round);
  const own = pending.map((row) => ownOf(row.seq));
  return { pending, own, read: await readLedger(store, account, own) };
}

export interface ResendWalk { account: string; campaignId: number; round: number; from: number; total: number; want: number }

/**
 * The next recipients (seqs) at or after `from` that resend round `round` has yet to send to, at
 * most `want` of them, and where the walk goes on (`next`; `total` once every seq was read). Reads
 * at most RESEND_SCAN_PER_CALL seqs, so a call stays short however few failed.
 */
export async function nextResendCandidates(store: Store, walk: ResendWalk): Promise<{ seqs: number[]; next: number }> {
  const { account, campaignId, round, want, total } = walk;
  if (walk.from === 0 && await nothingFailedBefore(store, account, campaignId, round)) return { seqs: [], next: total };
  const seqs: number[] = [];
  let next = walk.from;
  const end = Math.min(total, walk.from + RESEND_SCAN_PER_CALL);
  while (next < end && seqs.length < want) {
    const stride = Array.from({ length: Math.min(1000, end - next) }, (_, i) => ({ seq: next + i }));
    const { pending, own, read } = await pendingOfRound(store, account, campaignId, round, stride);
    const left = pending.filter((_, i) => !read.has(own[i])).map((row) => row.seq);
    const taken = left.slice(0, want - seqs.length);
    seqs.push(...taken);
    next = taken.length < left.length ? taken[taken.length - 1] + 1 : next + stride.length;
  }
  return { seqs, next };
}

/**
 * Whether no message of the rounds before `round` failed, as each round's finished task counted
 * (its result's `failed`): then the round has no one to send to and reads no ledger row (a walk of
 * 100,000 recipients is seconds of the store). A round whose task did not finish with its counts
 * (cancelled, failed, still running, or gone): false, and the walk decides.
 */
async function nothingFailedBefore(store: Store, account: string, campaignId: number, round: number): Promise<boolean> {
  const campaign = await store.campaigns.findOne({ _id: `${account}:${campaignId}`, account }, { projection: { launch: 1 } });
  const launchTask = campaign?.launch?.taskId;
  if (launchTask === undefined) return false;
  const tasks = await store.tasks.find({
    account,
    $or: [{ id: launchTask }, { type: 'CAMPAIGN_RESEND', 'parameters.campaignId': campaignId, id: { $gt: launchTask } }],
  }).project<Pick<TaskDoc, 'id' | 'state' | 'parameters' | 'result'>>({ _id: 0, id: 1, state: 1, parameters: 1, result: 1 }).toArray();
  const finishedClean = (task: Pick<TaskDoc, 'state' | 'result'>) => task.state === 'FINISHED' && (task.result as { failed?: unknown } | null)?.failed === 0;
  for (let r = 0; r < round; r += 1) {
    const ofRound = tasks.filter((task) => (r === 0 ? task.id === launchTask : task.parameters.round === r));
    if (ofRound.length !== 1 || !finishedClean(ofRound[0])) return false;
  }
  return true;
}
