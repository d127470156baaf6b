// A launch's recipient snapshot: who the campaign goes to, fixed when sending begins, each
// recipient numbered by `seq` (its message's mail_id is made of it). Stored in parts of
// SNAPSHOT_PART_SIZE recipients, one document each: a 100k audience is 200 inserts and a page
// of 500 recipients one `_id` read, where a document per recipient cost the store an insert and
// a read per message. A contact changed after the launch gets this campaign as the snapshot has
// it (its name, its custom fields); the suppression list is checked again as each message goes.
import type { CampaignDoc, CampaignRecipient, CampaignSnapshotPartDoc, Store } from '../../adapters/store/store';
import { audienceChunks } from './audience';

/** Recipients per snapshot document: the default page's size, so a page reads one document. */
export const SNAPSHOT_PART_SIZE = 500;

/** The `_id` of the snapshot part holding `part * SNAPSHOT_PART_SIZE` onwards: zero-padded, so `_id` order is seq order. */
export function snapshotPartId(account: string, campaignId: number, part: number): string {
  return `${account}:${campaignId}:${String(part).padStart(10, '0')}`;
}

/**
 * Writes the campaign's recipient snapshot: seq 0, 1, … in the order the audience is read.
 * Whatever an interrupted earlier attempt wrote is removed first, so a retry writes the same
 * kind of snapshot from the start (sending begins only once the snapshot is complete and its
 * count recorded). `onPart` is told the count so far (heartbeats). Returns the count.
 */
export async function writeSnapshot(store: Store, campaign: CampaignDoc, onPart: (written: number) => Promise<void>): Promise<number> {
  const { account, id: campaignId } = campaign;
  await store.campaignSnapshots.deleteMany({ account, campaignId });
  let seq = 0;
  let part: CampaignRecipient[] = [];
  const flush = async () => {
    const index = Math.floor(part[0].seq / SNAPSHOT_PART_SIZE);
    const doc: CampaignSnapshotPartDoc = { _id: snapshotPartId(account, campaignId, index), account, campaignId, part: index, recipients: part };
    part = [];
    await store.campaignSnapshots.insertOne(doc);
    await onPart(seq);
  };
  for await (const chunk of audienceChunks(store, campaign)) {
    for (const contact of chunk) {
      part.push({
        seq, contactId: contact.id, email: contact.email, firstName: contact.firstName ?? '', lastName: contact.lastName ?? '',
        gender: contact.gender ?? '', language: contact.language ?? '', customFields: contact.customFields ?? {},
      });
      seq += 1;
      if (part.length === SNAPSHOT_PART_SIZE) await flush();
    }
  }
  if (part.length > 0) await flush();
  return seq;
}

/** The snapshot's recipients of `seqs`, in seq order (those the snapshot does not have are left out). */
export async function snapshotRecipients(store: Store, account: string, campaignId: number, seqs: readonly number[]): Promise<CampaignRecipient[]> {
  const wanted = new Set(seqs);
  const parts = [...new Set(seqs.map((seq) => Math.floor(seq / SNAPSHOT_PART_SIZE)))];
  const docs = await store.campaignSnapshots.find({ _id: { $in: parts.map((part) => snapshotPartId(account, campaignId, part)) }, account }).toArray();
  return docs.flatMap((doc) => doc.recipients.filter((recipient) => wanted.has(recipient.seq))).sort((a, b) => a.seq - b.seq);
}

/** The snapshot's recipient `seq`, if it has one. */
export async function snapshotRecipient(store: Store, account: string, campaignId: number, seq: number): Promise<CampaignRecipient | undefined> {
  return (await snapshotRecipients(store, account, campaignId, [seq]))[0];
}
