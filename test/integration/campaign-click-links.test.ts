// A campaign's click links on the real stack: a campaign launched over HTTP, its messages taken
// from the sink, their links hit over HTTP. The links every message carries alike name an entry of
// the campaign's link table (stored before the first message), redirect to its target with the utm
// parameters and record the click as a carried link does; a forged table link is a 404; a carried
// link (a campaign message sent before link tables) still works; the table is saved once.
import type { NewAccount } from '../../core/accounts/accounts';
import { campaignMailId, campaignRequestId } from '../../core/campaigns/model';
import { setHtmlBody } from '../../core/campaigns/content-record';
import { linkTablesOf } from '../../core/content/tracking/link-tables';
import { trackingSecret } from '../../core/content/tracking/secret';
import { linkPart, linkSignature, messagePart, messageToken, readLinkFields, tableLinkSignature, type MessageRef, type TrackedLink } from '../../core/content/tracking/token';
import { ErrorCode } from '../../core/shared/errors';
import type { CampaignDoc, ContactDoc, Store } from '../../adapters/store/store';
import { addContacts, addLists, campaignApi, draftCampaign, waitForCampaign } from '../support/campaigns';
import { batchEvents } from '../support/events';
import { callHerald } from '../support/http';
import { startTestHerald, type TestHerald } from '../support/herald';
import { ledgerRowOf } from '../support/ledger';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
let store: Store;
let acme: NewAccount;
let account: string;
let campaign: CampaignDoc;
let contacts: ContactDoc[];

const HTML = '<html><body><p>Hi ${contact.first_name!"there"}</p>'
  + '<a href="https://shop.example.com/sale" data-interests="shoes, hats">Sale</a> '
  + '<a href="https://shop.example.com/for/${contact.first_name}">Yours</a></body></html>';
const UTM = 'utm_source=herald&utm_medium=email&utm_campaign=Links';

beforeAll(async () => {
  herald = await startTestHerald();
  store = herald.services.store;
  acme = await herald.newAccount();
  account = acme.account;
  await addLists(store, account, [1]);
  contacts = await addContacts(store, account, ['Ada', 'Bob', 'Cy', 'Dee'].map((firstName) => ({ email: `${firstName.toLowerCase()}@example.net`, firstName, lists: [1] })));
  const draft = await draftCampaign(store, account, { name: 'Links', include: { lists: [1] } });
  await setHtmlBody(store, draft, draft.content!, HTML);
  await campaignApi(herald.baseUrl, account, acme.apiKey).launch(draft);
  campaign = await waitForCampaign(store, draft, ['SENT']);
  await herald.sink.waitFor(4);
}, 90000);
afterAll(() => herald?.stop());

const requestId = () => campaignRequestId(campaign.id);

/** The click tokens in the mail `firstName` got, in order. */
function clickTokensOf(firstName: string): string[] {
  const mail = herald.sink.received.find((m) => m.rcptTo.includes(`${firstName.toLowerCase()}@example.net`))!;
  return [...String(mail.parsed.html).matchAll(/href="[^"]*\/t\/c\/([^"]+)"/g)].map((m) => m[1]);
}

/** The message sent to the snapshot's `firstName`: its reference and mail_id. */
async function messageOf(firstName: string): Promise<{ ref: MessageRef; mailId: string }> {
  const parts = await store.campaignSnapshots.find({ account, campaignId: campaign.id }).toArray();
  const row = parts.flatMap((part) => part.recipients).find((recipient) => recipient.firstName === firstName)!;
  return { ref: { account, requestId: requestId(), index: row.seq, seqMailId: true }, mailId: campaignMailId(account, campaign.id, row.seq) };
}

const hit = (token: string) => fetch(`${herald.baseUrl}/t/c/${token}`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' } });
const eventsOf = (mailId: string) => store.events.find({ account, mail_id: mailId }).toArray();

it('names the table\'s entry: redirects to its target with the utm parameters and records url, link_id, interests and contact_id', async () => {
  const table = await store.linkTables.findOne({ _id: `${account}:${requestId()}`, account });
  expect(table?.links).toEqual([{ i: expect.any(Number), t: `https://shop.example.com/sale?${UTM}`, r: 'https://shop.example.com/sale', n: ['shoes', 'hats'] }]);
  const saleId = table!.links[0].i;

  const [sale, yours] = clickTokensOf('Ada');
  expect(sale.split('.')[2]).toBe(String(saleId));
  expect(sale.length).toBeLessThan(130);
  const answer = await hit(sale);
  expect(answer.status).toBe(302);
  expect(answer.headers.get('location')).toBe(`https://shop.example.com/sale?${UTM}`);
  // The href with a substitution carries its link (its target is Ada's own).
  expect(Buffer.from(yours.split('.')[2], 'base64url').toString()).toMatch(/^\{"i":/);
  const own = await hit(yours);
  expect(own.headers.get('location')).toBe(`https://shop.example.com/for/Ada?${UTM}`);

  const { mailId } = await messageOf('Ada');
  const events = await eventsOf(mailId);
  const clicks = events.filter((e) => e.track_type === 'track.mail.clicked');
  const [first] = events.filter((e) => e.track_type === 'track.mail.first_clicked');
  const ada = contacts[0];
  const common = { mail_type: 'campaign', email: 'ada@example.net', contact_id: String(ada.id), agent_name: 'Firefox' };
  expect(clicks.find((c) => c.link_id === String(saleId))).toMatchObject({ ...common, url: 'https://shop.example.com/sale', interests: ['shoes', 'hats'] });
  expect(first).toMatchObject({ ...common, url: 'https://shop.example.com/sale', link_id: String(saleId), interests: ['shoes', 'hats'] });
  const ownClick = clicks.find((c) => c.link_id !== String(saleId))!;
  expect(ownClick).toMatchObject({ ...common, url: 'https://shop.example.com/for/${contact.first_name}', link_id: String(saleId + 1) });
  expect(ownClick).not.toHaveProperty('interests');
});

it('redirects a click on a message whose send is not recorded yet, and records it once the send is', async () => {
  // Dee's row taken away, as a worker killed between the relay's 250 and its ledger write leaves it.
  const { mailId } = await messageOf('Dee');
  const row = (await store.events.findOne({ account, mail_id: mailId, track_type: 'track.mail.sent' }))!;
  await store.events.deleteOne({ _id: row._id, account });
  const [sale] = clickTokensOf('Dee');
  const answer = await hit(sale);
  expect([answer.status, answer.headers.get('location')]).toEqual([302, `https://shop.example.com/sale?${UTM}`]);
  expect(await store.heldHits.countDocuments({ account, mailId })).toBe(1);

  await store.events.insertOne(row);
  await waitUntil('the held click recorded', async () => (await store.heldHits.countDocuments({ account, mailId })) === 0);
  const clicks = (await eventsOf(mailId)).filter((e) => e.track_type === 'track.mail.clicked');
  expect(clicks).toEqual([expect.objectContaining({ mail_type: 'campaign', email: 'dee@example.net', url: 'https://shop.example.com/sale', contact_id: String(contacts[3].id) })]);
});

it('answers a forged table link, an unknown link_id and a table link of a request without a table with a 404, recording nothing', async () => {
  const secret = await trackingSecret(store);
  const [sale] = clickTokensOf('Bob');
  const [message, messageSig, linkId, linkSig] = sale.split('.');
  const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
  // A transactional message, sent: its request has no link table.
  const sent = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: { authorization: `Bearer ${acme.transactionalKey}` },
    json: { from: { email: 'news@example.com' }, subject: 'Plain', content: { html: '<a href="https://shop.example.com/sale">Sale</a>' }, recipients: [{ to: { email: 'tx@example.net' } }] },
  });
  const [sentEvent] = await batchEvents(store, account, sent.headers.get('herald-batch-id')!, 1);
  const txRequest = (await ledgerRowOf(store, { _id: sentEvent.mail_id, account }))!.requestId;
  const txMessage = messagePart({ account, requestId: txRequest, index: 0 });

  for (const token of [
    `${message}.${messageSig}.${Number(linkId) + 1}.${linkSig}`, // another link_id, its signature kept
    `${message}.${messageSig}.${linkId}.${flip(linkSig)}`,
    `${message}.${flip(messageSig)}.${linkId}.${linkSig}`,
    `${message}.${messageSig}.99.${tableLinkSignature(secret, account, requestId(), '99')}`, // signed, but no such entry
    `${messageToken(secret, 'c', txMessage)}.0.${tableLinkSignature(secret, account, txRequest, '0')}`, // signed, but no such table
    `${messageToken(secret, 'c', txMessage)}.${linkId}.${linkSig}`, // Bob's link on another request's message
  ]) {
    const answer = await hit(token);
    expect([token, answer.status]).toEqual([token, 404]);
    expect(answer.headers.get('location')).toBeNull();
  }
  expect((await eventsOf((await messageOf('Bob')).mailId)).map((e) => e.track_type)).toEqual(['track.mail.sent']);
  expect((await eventsOf(sentEvent.mail_id)).map((e) => e.track_type)).toEqual(['track.mail.sent']);
});

it('still serves a campaign message\'s carried link (mail sent before link tables)', async () => {
  const secret = await trackingSecret(store);
  const { ref, mailId } = await messageOf('Cy');
  const link: TrackedLink = { linkId: 1, target: `https://shop.example.com/sale?${UTM}`, url: 'https://shop.example.com/sale', interests: ['shoes'] };
  const part = linkPart(link);
  const answer = await hit(`${messageToken(secret, 'c', messagePart(ref))}.${part}.${linkSignature(secret, ref.requestId, part)}`);
  expect(answer.status).toBe(302);
  expect(answer.headers.get('location')).toBe(link.target);
  const [click] = (await eventsOf(mailId)).filter((e) => e.track_type === 'track.mail.clicked');
  expect(click).toMatchObject({ url: link.url, link_id: '1', interests: ['shoes'], mail_type: 'campaign' });
});

it('saves a request\'s table once: the same table again is a no-op, another one is refused', async () => {
  const tables = linkTablesOf(store);
  const stored = (await store.linkTables.findOne({ _id: `${account}:${requestId()}`, account }))!;
  const links = stored.links.map((entry) => readLinkFields(entry)!);
  await expect(tables.save(account, requestId(), links)).resolves.toBeUndefined();
  await expect(tables.save(account, requestId(), [{ ...links[0], target: 'https://evil.example/' }])).rejects.toMatchObject({ code: ErrorCode.Conflict });
  expect(await store.linkTables.findOne({ _id: stored._id, account })).toEqual(stored);
  expect(await store.linkTables.countDocuments({ account })).toBe(1);
});
