// A launch's recipient snapshot: who the campaign goes to, fixed as sending begins, each
// recipient numbered by `seq` (its message's mail_id is made of it). Stored in parts of
// SNAPSHOT_PART_SIZE recipients, one document each: a 100k audience is 200 documents and a page
// of 500 recipients one `_id` read, where a document per recipient cost the store an insert and
// a read per message. Parts are written as the audience is read, and pages send from each part
// once it is complete (full, or the snapshot's total recorded), so the first messages leave while
// the rest of the audience is still read. A contact changed after its part was written gets this
// campaign as the part has it; the suppression list is checked again as each message goes.
import type { CampaignDoc, CampaignRecipient, CampaignSnapshotPartDoc, Store } from '../../adapters/store/store';
import { WriteQueue } from '../../adapters/batching/write-queue';
import { audienceChunks } from './audience';

/** Recipients per snapshot document: the default page's size, so a page reads one document. */
export const SNAPSHOT_PART_SIZE = 500;

/** The `_id` of a launch's snapshot part `part`: zero-padded, so `_id` order is seq order. */
export function snapshotPartId(account: string, campaignId: number, launchTaskId: number, part: number): string {
  return `${account}:${campaignId}:${launchTaskId}:${String(part).padStart(10, '0')}`;
}

/**
 * Writes the launch's recipient snapshot, seq 0, 1, … in the order the audience is read, each part
 * as soon as it is full (and the last one at the end), while the next contacts are read. A retry
 * keeps the full parts an earlier attempt wrote (pages may have sent to them), rewrites what came
 * after and appends the audience's other contacts, so no recipient's seq ever changes once a page
 * could have used it. An earlier launch's snapshot is removed. `onPart` is told the count written
 * so far (heartbeats). Returns the count.
 */
export async function writeSnapshot(store: Store, campaign: CampaignDoc, onPart: (written: number) => Promise<void>): Promise<number> {
  const { account, id: campaignId } = campaign;
  const taskId = campaign.launch!.taskId;
  await store.campaignSnapshots.deleteMany({ account, campaignId, taskId: { $ne: taskId } });
  const earlier = (await store.campaignSnapshots.find({ account, campaignId, taskId }).toArray()).sort((a, b) => a.part - b.part);
  let kept = 0;
  while (earlier[kept]?.part === kept && earlier[kept].recipients.length === SNAPSHOT_PART_SIZE) kept += 1;
  if (kept < earlier.length) await store.campaignSnapshots.deleteMany({ account, campaignId, taskId, part: { $gte: kept } });
  const taken = new Set(earlier.slice(0, kept).flatMap((part) => part.recipients.map((recipient) => recipient.contactId)));

  // Parts are written while the next contacts are read, each write taking every part ready by then (WriteQueue).
  const writes = new WriteQueue<CampaignSnapshotPartDoc>(async (docs) => {
    await store.campaignSnapshots.insertMany(docs, { ordered: true });
    const last = docs[docs.length - 1];
    await onPart(last.part * SNAPSHOT_PART_SIZE + last.recipients.length);
  });
  const written: Array<Promise<void>> = [];
  let failure: unknown;
  const write = (recipients: CampaignRecipient[]) => {
    if (failure !== undefined) throw failure; // an earlier write failed: stop reading
    const part = Math.floor(recipients[0].seq / SNAPSHOT_PART_SIZE);
    const doc: CampaignSnapshotPartDoc = { _id: snapshotPartId(account, campaignId, taskId, part), account, campaignId, taskId, part, recipients };
    written.push(writes.add([doc]).catch((error: unknown) => { failure ??= error; }));
  };
  let seq = kept * SNAPSHOT_PART_SIZE;
  let part: CampaignRecipient[] = [];
  for await (const chunk of audienceChunks(store, campaign)) {
    for (const contact of chunk) {
      if (taken.has(contact.id)) continue;
      part.push({
        seq, contactId: contact.id, email: contact.email, firstName: contact.firstName ?? '', lastName: contact.lastName ?? '',
        gender: contact.gender ?? '', language: contact.language ?? '', customFields: contact.customFields ?? {},
      });
      seq += 1;
      if (part.length === SNAPSHOT_PART_SIZE) {
        write(part);
        part = [];
      }
    }
  }
  if (part.length > 0) write(part);
  await Promise.all(written);
  if (failure !== undefined) throw failure;
  return seq;
}

/**
 * The snapshot's recipients of `seqs` in seq order, and whether every part they belong to is
 * full (a part being written is not there yet; the last part is full only if it happens to be).
 */
export async function snapshotRecipients(
  store: Store, account: string, campaignId: number, launchTaskId: number, seqs: readonly number[],
): Promise<{ recipients: CampaignRecipient[]; fullParts: boolean }> {
  const wanted = new Set(seqs);
  const parts = [...new Set(seqs.map((seq) => Math.floor(seq / SNAPSHOT_PART_SIZE)))];
  const docs = await store.campaignSnapshots.find({
    _id: { $in: parts.map((part) => snapshotPartId(account, campaignId, launchTaskId, part)) }, account,
  }).toArray();
  return {
    recipients: docs.flatMap((doc) => doc.recipients.filter((recipient) => wanted.has(recipient.seq))).sort((a, b) => a.seq - b.seq),
    fullParts: docs.length === parts.length && docs.every((doc) => doc.recipients.length === SNAPSHOT_PART_SIZE),
  };
}
