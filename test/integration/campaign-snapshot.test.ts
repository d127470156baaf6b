// A launch's recipient snapshot on the real store (core/campaigns/snapshot.ts): parts of 500, a
// part ready for pages once full (the last one once the total is recorded), and a retried
// snapshot that keeps the full parts an earlier attempt wrote, so no recipient's seq changes once
// a page could have sent to it.
import { connectStore, type CampaignDoc, type Store } from '../../adapters/store/store';
import { SNAPSHOT_PART_SIZE, snapshotRecipients, writeSnapshot } from '../../core/campaigns/snapshot';
import { newId } from '../../core/shared/ids';
import { addContacts, addLists, draftCampaign } from '../support/campaigns';

let store: Store;
const account = 'snap';

beforeAll(async () => {
  store = await connectStore(process.env.MONGODB_URI!, `herald_test_${newId().slice(0, 10)}`);
  await addLists(store, account, [1]);
  await addContacts(store, account, Array.from({ length: 1200 }, (_, i) => ({ email: `s${i}@example.net`, firstName: `S${i}`, lists: [1] })));
});
afterAll(async () => {
  await store.db.dropDatabase();
  await store.close();
});

const launched = (campaign: CampaignDoc, taskId: number): CampaignDoc => ({ ...campaign, launch: { taskId, workflowId: `w${taskId}`, paused: false } });
const partsOf = async (campaign: CampaignDoc) => (await store.campaignSnapshots.find({ account, campaignId: campaign.id }).toArray()).sort((a, b) => a.part - b.part);
const seqs = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

it('writes the audience in parts of 500, each recipient once, the last part not full', async () => {
  const campaign = launched(await draftCampaign(store, account, { name: 'Parts', include: { lists: [1] } }), 1);
  const beats: number[] = [];
  expect(await writeSnapshot(store, campaign, async (written) => { beats.push(written); })).toBe(1200);
  const parts = await partsOf(campaign);
  expect(parts.map((part) => [part.part, part.taskId, part.recipients.length])).toEqual([[0, 1, 500], [1, 1, 500], [2, 1, 200]]);
  const recipients = parts.flatMap((part) => part.recipients);
  expect(recipients.map((recipient) => recipient.seq)).toEqual(seqs(0, 1200));
  expect(new Set(recipients.map((recipient) => recipient.email)).size).toBe(1200);
  expect(beats[beats.length - 1]).toBe(1200);

  // A page of a full part is ready; one reaching into the last part is not until the total is recorded.
  expect((await snapshotRecipients(store, account, campaign.id, 1, seqs(500, 1000))).fullParts).toBe(true);
  const last = await snapshotRecipients(store, account, campaign.id, 1, seqs(1000, 1500));
  expect([last.fullParts, last.recipients.length]).toEqual([false, 200]);
  // Deferred recipients named by seq, across parts, come back in seq order.
  expect((await snapshotRecipients(store, account, campaign.id, 1, [1100, 3, 501])).recipients.map((r) => r.seq)).toEqual([3, 501, 1100]);
});

it('keeps the full parts of an interrupted attempt on a retry, rewrites what came after, and appends the rest of the audience', async () => {
  const campaign = launched(await draftCampaign(store, account, { name: 'Retry', include: { lists: [1] } }), 2);
  await writeSnapshot(store, campaign, async () => undefined);
  const [part0] = await partsOf(campaign);
  // The attempt died after part 0 and half of part 1; meanwhile a contact of part 0 unsubscribed and new ones joined.
  await store.campaignSnapshots.deleteMany({ account, campaignId: campaign.id, part: { $gte: 1 } });
  await store.campaignSnapshots.insertOne({ ...part0, _id: part0._id.replace(/0000000000$/, '0000000001'), part: 1, recipients: part0.recipients.slice(0, 250).map((r) => ({ ...r, seq: r.seq + 500 })) });
  const leaving = part0.recipients[10].email;
  await store.contacts.updateOne({ account, email: leaving }, { $set: { state: 'UNSUBSCRIBED' } });
  await addContacts(store, account, [{ email: 'late1@example.net', lists: [1] }, { email: 'late2@example.net', lists: [1] }]);

  expect(await writeSnapshot(store, campaign, async () => undefined)).toBe(1202);
  const parts = await partsOf(campaign);
  expect(parts[0]).toEqual(part0); // untouched: a page may have sent to it
  expect(parts.map((part) => part.recipients.length)).toEqual([500, 500, 202]);
  const recipients = parts.flatMap((part) => part.recipients);
  expect(recipients.map((recipient) => recipient.seq)).toEqual(seqs(0, 1202));
  expect(new Set(recipients.map((recipient) => recipient.contactId)).size).toBe(1202);
  expect(recipients.filter((recipient) => recipient.email === leaving).map((r) => r.seq)).toEqual([10]);
  expect(recipients.slice(500).some((recipient) => recipient.email.startsWith('late'))).toBe(true);
});

it('removes the snapshot of an earlier launch of the campaign', async () => {
  const draft = await draftCampaign(store, account, { name: 'Again', include: { lists: [1] } });
  await writeSnapshot(store, launched(draft, 3), async () => undefined);
  await writeSnapshot(store, launched(draft, 4), async () => undefined);
  expect(new Set((await partsOf(draft)).map((part) => part.taskId))).toEqual(new Set([4]));
  expect(SNAPSHOT_PART_SIZE).toBe(500);
});
